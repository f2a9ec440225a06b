import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { openNoFollow, readRegularFile } from './bounded-read.js';
import { budgetPatterns } from './ignore-patterns.js';
import { buildOutputDirectories } from './default-rules.js';

/** Ignore files larger than this are not read; their rules are not applied, and that is reported. */
export const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** Receives one line for each ignore file or pattern that was not applied, and why. */
export type IgnoreWarn = (warning: string) => void;

/** Collects ignore warnings, keeping the first `limit` and counting the rest, so a hostile tree cannot flood a summary. */
export function collectIgnoreWarnings(limit = 20): { warn: IgnoreWarn; list: () => string[] | undefined } {
  const kept: string[] = [];
  let dropped = 0;
  return {
    warn: (warning) => {
      if (kept.length < limit) kept.push(warning);
      else dropped++;
    },
    list: () => (kept.length === 0 ? undefined : [...kept.sort(), ...(dropped > 0 ? [`… and ${dropped} more ignore-file warning(s).`] : [])]),
  };
}

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
  // A build output folder starts out ignored; a `!build/` rule takes it back.
  let ignored = isDirectory && buildOutputDirectories.has(relativePath.slice(relativePath.lastIndexOf('/') + 1));
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
export async function readIgnoreLevel(
  absoluteDirectory: string,
  base: string,
  respectGitignore: boolean,
  extra: readonly Ignore[] = [],
  warn: IgnoreWarn = () => undefined,
): Promise<IgnoreLevel | undefined> {
  const matchers: Ignore[] = [...extra];
  const names = respectGitignore ? ['.gitignore', '.lociignore'] : ['.lociignore'];
  for (const name of names) {
    const label = base === '' ? name : `${base}/${name}`;
    const text = await readIgnoreFile(join(absoluteDirectory, name), label, warn);
    if (text !== undefined) matchers.push(matcherFromPatterns(text.split(/\r?\n/), label, warn));
  }
  return matchers.length > 0 ? { base, matchers } : undefined;
}

/** A matcher for patterns in .gitignore syntax; patterns too costly to match are left out and reported. */
export function matcherFromPatterns(patterns: readonly string[], label = 'patterns', warn: IgnoreWarn = () => undefined): Ignore {
  const budget = budgetPatterns(patterns);
  if (budget.refused.length > 0) {
    const first = budget.refused[0] as { pattern: string; why: string };
    const shown = JSON.stringify(first.pattern.length > 80 ? `${first.pattern.slice(0, 80)}…` : first.pattern);
    warn(`${label}: ${budget.refused.length} pattern(s) not applied, e.g. ${shown}: ${first.why}.`);
  }
  return ignore({ allowRelativePaths: true }).add(budget.kept);
}

/**
 * The text of an ignore file, or undefined when there is none. Only a regular file up to
 * MAX_IGNORE_FILE_BYTES is read: opened without following links and without blocking, so a
 * FIFO, device or socket named `.gitignore` cannot hang the walk; what is not read is reported.
 */
export async function readIgnoreFile(path: string, label: string, warn: IgnoreWarn = () => undefined): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined; // no ignore file here: no rules
    // Like git, a symbolic link is not followed for an ignore file.
    warn(`${label} not read (${code === 'ELOOP' ? 'a symbolic link' : code}); its rules are not applied.`);
    return undefined;
  }
  try {
    const read = await readRegularFile(handle, MAX_IGNORE_FILE_BYTES);
    if (read.ok) return read.bytes.toString('utf8');
    const why =
      read.reason === 'special-file'
        ? 'not a regular file: a folder, FIFO, device or socket'
        : read.reason === 'too-large'
          ? `${read.size} bytes, over the ${MAX_IGNORE_FILE_BYTES}-byte limit`
          : 'it changed while being read';
    warn(`${label} not read (${why}); its rules are not applied.`);
    return undefined;
  } catch (error) {
    warn(`${label} not read (${(error as NodeJS.ErrnoException).code ?? 'error'}); its rules are not applied.`);
    return undefined;
  } finally {
    await handle.close();
  }
}
