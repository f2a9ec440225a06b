import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FolderConfigFile } from '../../config/folder-config.js';
import { LociError } from '../../errors/index.js';

/**
 * Folders whose own loci.config.json the user trusts, kept in the user's config folder
 * (never in the folder itself, which could then vouch for itself). An entry covers one
 * real path and one exact file content: a changed file must be trusted again.
 */
export interface TrustedFolder {
  path: string;
  configSha256: string;
  trustedAt: string;
}

export function readTrustedFolders(file: string): TrustedFolder[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new LociError('CONFIG_INVALID', `Cannot read the trusted folders list ${file}: ${(error as Error).message}.`, { cause: error });
  }
  try {
    const parsed = JSON.parse(text) as { folders?: unknown };
    if (!Array.isArray(parsed.folders)) throw new Error('no "folders" list');
    return parsed.folders.filter((entry): entry is TrustedFolder => typeof entry === 'object' && entry !== null && typeof entry.path === 'string' && typeof entry.configSha256 === 'string');
  } catch (error) {
    throw new LociError('CONFIG_INVALID', `The trusted folders list ${file} is damaged: ${(error as Error).message}.`, {
      hint: 'Delete the file and run `loci trust <dir>` again for the folders you trust.',
      cause: error,
    });
  }
}

/** Written whole to a private file (0600 in a 0700 folder), then renamed into place. */
export function writeTrustedFolders(file: string, folders: readonly TrustedFolder[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

export function isTrustedFolder(folders: readonly TrustedFolder[], config: FolderConfigFile): boolean {
  return folders.some((entry) => entry.path === config.realRoot && entry.configSha256 === config.sha256);
}
