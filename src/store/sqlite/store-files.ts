import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fromFileSystemError, LociError } from '../../errors/index.js';

const SQLITE_HEADER = 'SQLite format 3\0';
/** Store files hold indexed source and agent memory: readable by their owner only. */
export const STORE_FILE_MODE = 0o600;
export const STORE_FOLDER_MODE = 0o700;

/**
 * What is at a database path: 'missing', 'empty' (a zero-byte file) or 'database' (a file
 * with content). Anything in the way (a folder at the file's path, a file at the folder's)
 * is STORE_PATH_INVALID, and file-system errors are one-line user errors.
 */
export function inspectDatabasePath(file: string): 'missing' | 'empty' | 'database' {
  const stats = statOrUndefined(file);
  if (stats?.isDirectory()) {
    throw new LociError('STORE_PATH_INVALID', `The store path ${file} is a folder, not a database file.`, {
      details: { file },
      hint: 'Pass --store the folder that holds it (loci keeps index.db inside), or a .db path where no folder is in the way.',
    });
  }
  if (stats && !stats.isFile()) throw new LociError('STORE_PATH_INVALID', `The store path ${file} is not a regular file.`, { details: { file } });
  if (!stats) {
    const folder = dirname(file);
    const folderStats = statOrUndefined(folder);
    if (folderStats && !folderStats.isDirectory()) {
      // A file named .loci in the indexed folder is in the default store's way; any other file
      // was named as the store, and is not one (a store is a folder, or a .db/.sqlite file).
      const defaultFolder = basename(folder) === '.loci';
      throw new LociError(
        'STORE_PATH_INVALID',
        defaultFolder ? `A file named .loci is where the store folder should be (${folder}).` : `${folder} is a file, not a loci store: a store is a folder (it holds index.db) or a .db/.sqlite file.`,
        {
          details: { file, folder },
          hint: defaultFolder ? 'Rename that file if it is not needed there, or pass --store another folder.' : 'Pass --store the folder that holds the index (or will), or the path of its .db file.',
        },
      );
    }
    return 'missing';
  }
  return stats.size > 0 ? 'database' : 'empty';
}

/**
 * Creates the store folder (0700 when loci creates it) and an empty database file (0600)
 * before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode.
 * An existing folder or file keeps its mode: it may be the user's own folder, or shared
 * on purpose (`loci doctor` reports store files that others can read).
 */
export function createDatabaseFile(file: string): void {
  const folder = dirname(file);
  try {
    mkdirSync(folder, { recursive: true, mode: STORE_FOLDER_MODE });
  } catch (error) {
    throw fromFileSystemError(error, { path: folder, action: 'create the store folder' });
  }
  try {
    // 'a' creates without truncating: another process may have created it a moment ago.
    closeSync(openSync(file, 'a', STORE_FILE_MODE));
  } catch (error) {
    throw fromFileSystemError(error, { path: file, action: 'create' });
  }
}

export function assertSqliteHeader(file: string): void {
  let handle: number;
  try {
    handle = openSync(file, 'r');
  } catch (error) {
    throw fromFileSystemError(error, { path: file, action: 'read' });
  }
  try {
    const buffer = Buffer.alloc(16);
    const read = readSync(handle, buffer, 0, 16, 0);
    if (read < 16 || buffer.toString('latin1') !== SQLITE_HEADER) {
      throw new LociError('STORE_FOREIGN', `${file} exists and is not an SQLite database.`, { details: { file } });
    }
  } catch (error) {
    throw fromFileSystemError(error, { path: file, action: 'read' });
  } finally {
    closeSync(handle);
  }
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file sits where a parent folder should be; the caller names which.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw fromFileSystemError(error, { path, action: 'reach' });
  }
}
