import type { Dirent, Stats } from 'node:fs';
import { assertRootFolder } from './root-folder.js';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { LociError, throwIfAborted } from '../errors/index.js';
import { alwaysExcludedDirectories, binaryExtensions, defaultIgnorePatterns } from './default-rules.js';
import { collectIgnoreWarnings, isIgnored, matcherFromPatterns, readIgnoreFile, readIgnoreLevel, type IgnoreLevel, type IgnoreWarn } from './ignore-stack.js';
import { detectLanguage } from './language.js';
import { isSecretPath } from './secret-rules.js';
import { realTargetSkip } from './target-rules.js';
import { emptySkipCounts, type SkipReason, type SourceFile, type WalkOptions, type WalkResult } from './spec.js';

const EXAMPLES_PER_REASON = 5;
const CONCURRENT_DIRECTORIES = 16;
/**
 * Folders deeper than this below the root are not walked (reason `too-deep`). Real projects
 * stay far below; the cap bounds what a hostile chain of folders costs (ignore matching
 * grows with depth, and so do the paths and the loop checks).
 */
export const MAX_FOLDER_DEPTH = 64;

interface Directory {
  absolute: string;
  /** POSIX path relative to the root ('' for the root). */
  relative: string;
  /** Real path, for loop detection. */
  real: string;
  /** Real paths of this directory's ancestors (including itself). */
  ancestry: ReadonlySet<string>;
  /** Folders between the root and this one (the root is 0). */
  depth: number;
  levels: readonly IgnoreLevel[];
}

/**
 * Walks a folder with git's ignore semantics and loci's own exclusions, counting every
 * skipped path under one reason. Never throws for unreadable entries; never leaves the root.
 */
export async function walkFolder(options: WalkOptions): Promise<WalkResult> {
  const rootReal = await resolveRoot(options.root);
  const result: WalkResult = { files: [], skipped: emptySkipCounts(), skippedExamples: {} };
  const excludedAbsolute = new Set((options.excludeAbsolutePaths ?? []).map((path) => path.replace(/[\\/]+$/, '')));
  const respectGitignore = options.respectGitignore ?? true;
  const walkedSymlinkTargets = new Set<string>();

  const skip = (reason: SkipReason, relative: string) => {
    result.skipped[reason]++;
    const examples = (result.skippedExamples[reason] ??= []);
    if (examples.length < EXAMPLES_PER_REASON) examples.push(relative);
  };

  const { warn, list: warnings } = collectIgnoreWarnings();
  const rootLevels = await rootIgnoreLevels(options.root, respectGitignore, options.exclude ?? [], warn);
  const queue: Directory[] = [{ absolute: options.root, relative: '', real: rootReal, ancestry: new Set([rootReal]), depth: 0, levels: rootLevels }];

  const visit = async (directory: Directory): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(directory.absolute, { withFileTypes: true });
    } catch {
      skip('unreadable', directory.relative || '.');
      return;
    }
    let levels = directory.levels;
    if (directory.relative !== '') {
      const own = await readIgnoreLevel(directory.absolute, directory.relative, respectGitignore, [], warn);
      if (own) levels = [...levels, own];
    }
    await Promise.all(entries.map((entry) => visitEntry(directory, levels, entry)));
  };

  const visitEntry = async (directory: Directory, levels: readonly IgnoreLevel[], entry: Dirent): Promise<void> => {
    const name = entry.name;
    const absolute = join(directory.absolute, name);
    const relative = directory.relative === '' ? name : `${directory.relative}/${name}`;
    if (excludedAbsolute.has(absolute)) {
      skip('excluded-directory', relative);
      return;
    }
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    let stats: Stats | undefined;
    let real = join(directory.real, name);
    if (entry.isSymbolicLink()) {
      try {
        real = await realpath(absolute);
        stats = await stat(absolute);
      } catch {
        skip('unreadable', relative); // dangling link or unreadable target
        return;
      }
      if (real !== rootReal && !real.startsWith(rootReal + sep)) {
        skip('symlink-outside-root', relative);
        return;
      }
      isDirectory = stats.isDirectory();
      // A link must not launder what the rules keep out (.git/config, the store, .env).
      const targetSkip = realTargetSkip(real, isDirectory, { root: options.root, rootReal, excludeAbsolutePaths: [...excludedAbsolute], ...(options.indexSecrets ? { indexSecrets: true } : {}) });
      if (targetSkip) {
        skip(targetSkip, relative);
        return;
      }
      isFile = stats.isFile();
    }
    if (isDirectory) {
      if (alwaysExcludedDirectories.has(name)) {
        skip('excluded-directory', relative);
        return;
      }
      if (directory.depth >= MAX_FOLDER_DEPTH) {
        skip('too-deep', relative);
        return;
      }
      if (isIgnored(levels, relative, true)) {
        skip('ignored', relative);
        return;
      }
      if (entry.isSymbolicLink()) {
        // A link to an ancestor would recurse forever; one walked already would repeat work.
        if (directory.ancestry.has(real) || walkedSymlinkTargets.has(real)) {
          skip('symlink-loop', relative);
          return;
        }
        walkedSymlinkTargets.add(real);
      }
      queue.push({ absolute, relative, real, ancestry: new Set([...directory.ancestry, real]), depth: directory.depth + 1, levels });
      return;
    }
    if (!isFile) {
      skip(entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice() ? 'special-file' : 'unreadable', relative);
      return;
    }
    if (isIgnored(levels, relative, false)) {
      skip('ignored', relative);
      return;
    }
    if (!options.indexSecrets && isSecretPath(relative)) {
      skip('secret', relative);
      return;
    }
    if (binaryExtensions.has(extname(name).toLowerCase())) {
      skip('binary', relative);
      return;
    }
    try {
      stats ??= await lstat(absolute);
    } catch {
      skip('unreadable', relative);
      return;
    }
    if (stats.size > options.maxFileBytes) {
      skip('too-large', relative);
      return;
    }
    result.files.push({ path: relative, absolutePath: absolute, size: stats.size, mtimeMs: stats.mtimeMs, language: detectLanguage(relative) });
  };

  // Breadth-first with a bounded number of directories in flight.
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (options.signal?.aborted) {
        if (active === 0) reject(new LociError('ABORTED', 'The walk was cancelled.', { cause: options.signal.reason }));
        return;
      }
      while (active < CONCURRENT_DIRECTORIES && queue.length > 0) {
        const directory = queue.shift() as Directory;
        active++;
        visit(directory)
          .catch(reject)
          .finally(() => {
            active--;
            pump();
          });
      }
      if (active === 0 && queue.length === 0) resolve();
    };
    pump();
  });
  throwIfAborted(options.signal);
  result.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const warned = warnings();
  if (warned) result.warnings = warned;
  return result;
}

async function resolveRoot(root: string): Promise<string> {
  assertRootFolder(root);
  return realpath(root);
}

/** Root precedence, lowest first: defaults, .git/info/exclude, .gitignore, .lociignore, config. */
export async function rootIgnoreLevels(root: string, respectGitignore: boolean, exclude: readonly string[], warn: IgnoreWarn = () => undefined): Promise<IgnoreLevel[]> {
  const matchers = [matcherFromPatterns(defaultIgnorePatterns)];
  if (respectGitignore) {
    const infoExclude = await readIgnoreFile(join(root, '.git', 'info', 'exclude'), '.git/info/exclude', warn);
    if (infoExclude) matchers.push(matcherFromPatterns(infoExclude.split(/\r?\n/), '.git/info/exclude', warn));
  }
  const own = await readIgnoreLevel(root, '', respectGitignore, matchers, warn);
  const level = own ?? { base: '', matchers };
  if (exclude.length > 0) level.matchers.push(matcherFromPatterns(exclude, 'sources.exclude', warn));
  return [level];
}

export type { SourceFile };
