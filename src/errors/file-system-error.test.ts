import { describe, expect, it } from 'vitest';
import { fromFileSystemError } from './file-system-error.js';
import { LociError } from './loci-error.js';

/** Node's own shape for a failed file-system call. */
function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '${path}'`), { code, path, syscall: 'open' });
}

describe('file-system errors as user errors', () => {
  // EROFS, ENOSPC and EDQUOT need a read-only or full mount, which tests cannot make here;
  // the end-to-end tests meet EACCES, EPERM, EISDIR and ENOTDIR for real.
  it.each([
    ['EACCES', 'STORE_UNWRITABLE', /permission denied/],
    ['EPERM', 'STORE_UNWRITABLE', /not permitted/],
    ['EROFS', 'STORE_UNWRITABLE', /read-only/],
    ['ENOSPC', 'STORE_UNWRITABLE', /no space left/],
    ['EDQUOT', 'STORE_UNWRITABLE', /quota/],
    ['EISDIR', 'STORE_PATH_INVALID', /is a folder/],
    ['ENOTDIR', 'STORE_PATH_INVALID', /is a file, not a folder/],
  ])('%s is %s (exit 4), one line naming the path', (code, expected, says) => {
    const error = fromFileSystemError(errno(code, '/data/.loci/index.db'), { action: 'write' });
    expect(error).toBeInstanceOf(LociError);
    const loci = error as LociError;
    expect(loci.code).toBe(expected);
    expect(loci.category).toBe('conflict');
    expect(loci.message).toMatch(says);
    expect(loci.describe()).toContain('/data/.loci/index.db');
    expect(loci.describe()).not.toContain('\n');
  });

  it('leaves other errors to their caller', () => {
    const other = new Error('boom');
    expect(fromFileSystemError(other)).toBe(other);
    const missing = errno('ENOENT', '/nowhere');
    expect(fromFileSystemError(missing)).toBe(missing);
  });
});
