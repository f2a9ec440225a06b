import { LociError } from './loci-error.js';

/** What each file-system errno means to a user, and which store code it becomes. */
const meanings: Record<string, { code: 'STORE_UNWRITABLE' | 'STORE_PATH_INVALID'; says: string }> = {
  EACCES: { code: 'STORE_UNWRITABLE', says: 'permission denied' },
  EPERM: { code: 'STORE_UNWRITABLE', says: 'operation not permitted' },
  EROFS: { code: 'STORE_UNWRITABLE', says: 'the file system is read-only' },
  ENOSPC: { code: 'STORE_UNWRITABLE', says: 'no space left on the disk' },
  EDQUOT: { code: 'STORE_UNWRITABLE', says: 'the disk quota is used up' },
  EFBIG: { code: 'STORE_UNWRITABLE', says: 'the file is larger than this system allows' },
  EISDIR: { code: 'STORE_PATH_INVALID', says: 'it is a folder, not a file' },
  ENOTDIR: { code: 'STORE_PATH_INVALID', says: 'a part of the path is a file, not a folder' },
  EEXIST: { code: 'STORE_PATH_INVALID', says: 'a file is in the way' },
  ENAMETOOLONG: { code: 'STORE_PATH_INVALID', says: 'the path is too long' },
  ELOOP: { code: 'STORE_PATH_INVALID', says: 'the path has a symbolic link loop' },
};

/** Whether an error is a Node file-system error this module turns into a user error. */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code in meanings && !(error instanceof LociError);
}

/**
 * The one mapping from file-system errors (EACCES, EROFS, ENOSPC, EISDIR, …) to one-line
 * user errors; anything else is returned unchanged for the caller to handle.
 */
export function fromFileSystemError(error: unknown, context: { path?: string; action?: string } = {}): unknown {
  if (!isFileSystemError(error)) return error;
  const meaning = meanings[error.code as string] as (typeof meanings)[string];
  const path = context.path ?? error.path ?? 'the store';
  return new LociError(meaning.code, `Cannot ${context.action ?? 'use'} ${path}: ${meaning.says} (${error.code}).`, {
    cause: error,
    details: { path, errno: error.code },
  });
}
