import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** The ignore rules of one directory level: patterns relative to `base` (POSIX, '' = root). */
export interface IgnoreLevel {
  base: string;
  matchers: Ignore[];
}

/**
 * Git semantics across nested ignore files: levels are checked from the root down and
 * within a level in order, and the last rule that matches decides, so a deeper file (or a
 * later `!pattern`) overrides a shallower one.
 */
export function isIgnored(levels: readonly IgnoreLevel[], relativePath: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    const local = level.base === '' ? relativePath : relativePath.slice(level.base.length + 1);
    const candidate = isDirectory ? `${local}/` : local;
    for (const matcher of level.matchers) {
      const verdict = matcher.test(candidate);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
  }
  return ignored;
}

/** Reads `.gitignore` (if wanted) then `.lociignore` of one directory. */
export async function readIgnoreLevel(absoluteDirectory: string, base: string, respectGitignore: boolean, extra: readonly Ignore[] = []): Promise<IgnoreLevel | undefined> {
  const matchers: Ignore[] = [...extra];
  const names = respectGitignore ? ['.gitignore', '.lociignore'] : ['.lociignore'];
  for (const name of names) {
    const text = await readOptional(join(absoluteDirectory, name));
    if (text !== undefined) matchers.push(ignore({ allowRelativePaths: true }).add(text));
  }
  return matchers.length > 0 ? { base, matchers } : undefined;
}

export function matcherFromPatterns(patterns: readonly string[]): Ignore {
  return ignore({ allowRelativePaths: true }).add([...patterns]);
}

export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined; // absent or unreadable ignore files simply add no rules
  }
}
