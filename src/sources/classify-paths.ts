import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { alwaysExcludedDirectories, binaryExtensions } from './default-rules.js';
import { collectIgnoreWarnings, isIgnored, readIgnoreLevel, type IgnoreLevel } from './ignore-stack.js';
import { detectLanguage } from './language.js';
import { isSecretPath } from './secret-rules.js';
import { realTargetSkip } from './target-rules.js';
import type { SkipReason, SourceFile, WalkOptions } from './spec.js';
import { MAX_FOLDER_DEPTH, rootIgnoreLevels } from './walk-folder.js';

export interface ClassifiedPaths {
  /** Paths that are indexable files now. */
  files: SourceFile[];
  /** Paths that are gone, or no longer indexable (ignored, binary, too large…): drop them from the index. */
  gone: Array<{ path: string; reason: SkipReason | 'missing' }>;
  /** Ignore files or patterns that were not applied, and why. */
  warnings?: string[];
}

/**
 * Decides for a few changed paths (relative, POSIX) what a full walk would decide: the same
 * ignore files along each path's folders, exclusions, symlink and size rules. This is what
 * lets a watcher re-index one file in milliseconds instead of walking the tree.
 */
export async function classifyPaths(options: WalkOptions, paths: readonly string[]): Promise<ClassifiedPaths> {
  const respectGitignore = options.respectGitignore ?? true;
  const rootReal = await realpath(options.root);
  const excluded = (options.excludeAbsolutePaths ?? []).map((path) => path.replace(/[\\/]+$/, ''));
  const levelsByFolder = new Map<string, Promise<readonly IgnoreLevel[]>>();
  const { warn, list: warnings } = collectIgnoreWarnings();
  const levelsOf = (folder: string): Promise<readonly IgnoreLevel[]> => {
    let levels = levelsByFolder.get(folder);
    if (!levels) {
      if (folder === '') levels = rootIgnoreLevels(options.root, respectGitignore, options.exclude ?? [], warn);
      else {
        const parent = folder.includes('/') ? folder.slice(0, folder.lastIndexOf('/')) : '';
        levels = levelsOf(parent).then(async (above) => {
          const own = await readIgnoreLevel(join(options.root, folder), folder, respectGitignore, [], warn);
          return own ? [...above, own] : above;
        });
      }
      levelsByFolder.set(folder, levels);
    }
    return levels;
  };

  const result: ClassifiedPaths = { files: [], gone: [] };
  for (const path of [...new Set(paths)].sort()) {
    const parts = path.split('/');
    const absolute = join(options.root, ...parts);
    const drop = (reason: SkipReason | 'missing') => result.gone.push({ path, reason });
    if (excluded.some((folder) => absolute === folder || absolute.startsWith(folder + sep))) {
      drop('excluded-directory');
      continue;
    }
    let rejected: SkipReason | undefined = parts.length - 1 > MAX_FOLDER_DEPTH ? 'too-deep' : undefined;
    for (let depth = 1; depth < parts.length && !rejected; depth++) {
      const folder = parts.slice(0, depth).join('/');
      if (alwaysExcludedDirectories.has(parts[depth - 1] as string)) rejected = 'excluded-directory';
      else if (isIgnored(await levelsOf(parts.slice(0, depth - 1).join('/')), folder, true)) rejected = 'ignored';
    }
    if (rejected) {
      drop(rejected);
      continue;
    }
    let stats: Stats;
    let real: string;
    try {
      // Resolved whole, not just the last part: a linked folder on the way can lead out too.
      stats = await stat(absolute);
      real = await realpath(absolute);
    } catch {
      drop('missing');
      continue;
    }
    if (real !== join(rootReal, ...parts)) {
      const targetSkip = realTargetSkip(real, stats.isDirectory(), { root: options.root, rootReal, excludeAbsolutePaths: excluded, ...(options.indexSecrets ? { indexSecrets: true } : {}) });
      if (targetSkip) {
        drop(targetSkip);
        continue;
      }
    }
    if (!stats.isFile()) {
      drop(stats.isDirectory() ? 'excluded-directory' : 'special-file');
      continue;
    }
    if (isIgnored(await levelsOf(parts.slice(0, -1).join('/')), path, false)) drop('ignored');
    else if (!options.indexSecrets && isSecretPath(path)) drop('secret');
    else if (binaryExtensions.has(extname(path).toLowerCase())) drop('binary');
    else if (stats.size > options.maxFileBytes) drop('too-large');
    else result.files.push({ path, absolutePath: absolute, size: stats.size, mtimeMs: stats.mtimeMs, language: detectLanguage(path) });
  }
  const warned = warnings();
  if (warned) result.warnings = warned;
  return result;
}
