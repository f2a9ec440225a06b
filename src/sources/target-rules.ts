import { isAbsolute, relative, sep } from 'node:path';
import { alwaysExcludedDirectories } from './default-rules.js';
import { isSecretPath } from './secret-rules.js';
import type { SkipReason } from './spec.js';

export interface TargetRuleOptions {
  /** The root as given, and its real path (symlinks resolved). */
  root: string;
  rootReal: string;
  /** Folders and files never read (the store), as given for `root`. */
  excludeAbsolutePaths?: readonly string[];
  indexSecrets?: boolean;
}

/** The real path relative to the real root (POSIX), or undefined when it lies outside. */
export function realRelativePath(rootReal: string, real: string): string | undefined {
  const path = relative(rootReal, real);
  if (path === '') return '';
  if (path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path)) return undefined;
  return path.split(sep).join('/');
}

/**
 * Rules on where a path really leads once symlinks are resolved, so a link inside the root
 * cannot serve what the root's own rules keep out: `.git/config`, the store, `.env`.
 */
export function realTargetSkip(real: string, isDirectory: boolean, options: TargetRuleOptions): SkipReason | undefined {
  const path = realRelativePath(options.rootReal, real);
  if (path === undefined) return 'symlink-outside-root';
  const parts = path.split('/');
  if ((isDirectory ? parts : parts.slice(0, -1)).some((part) => alwaysExcludedDirectories.has(part))) return 'excluded-directory';
  for (const excluded of options.excludeAbsolutePaths ?? []) {
    const trimmed = excluded.replace(/[\\/]+$/, '');
    const asReal = trimmed === options.root || trimmed.startsWith(options.root + sep) ? options.rootReal + trimmed.slice(options.root.length) : trimmed;
    for (const candidate of new Set([trimmed, asReal])) if (real === candidate || real.startsWith(candidate + sep)) return 'excluded-directory';
  }
  if (!isDirectory && !options.indexSecrets && isSecretPath(path)) return 'secret';
  return undefined;
}
