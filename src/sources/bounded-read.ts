import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { throwIfAborted } from '../errors/index.js';

/**
 * Opens a file for reading without following a link and without blocking: a FIFO opens at
 * once (and is then refused as not a regular file) instead of waiting for a writer.
 */
export function openNoFollow(path: string): Promise<FileHandle> {
  return open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
}

export type BoundedRead =
  | { ok: true; bytes: Buffer }
  /** `special-file`: a folder, FIFO, device or socket; `too-large`: over the cap (size given); `grew`: it grew past what fstat said while being read. */
  | { ok: false; reason: 'special-file' | 'too-large' | 'grew'; size?: number };

/**
 * Reads an opened file whole when it is a regular file of at most `maxBytes`. One byte more
 * than fstat's size is offered, so a file that grows while it is read is refused, not read on
 * without bound. `beforeRead` sees the size first and may throw (a caller's own budget).
 */
export async function readRegularFile(handle: FileHandle, maxBytes: number, options: { signal?: AbortSignal; beforeRead?: (size: number) => void } = {}): Promise<BoundedRead> {
  const stats = await handle.stat();
  if (!stats.isFile()) return { ok: false, reason: 'special-file' };
  if (stats.size > maxBytes) return { ok: false, reason: 'too-large', size: stats.size };
  options.beforeRead?.(stats.size);
  const buffer = Buffer.alloc(stats.size + 1);
  let length = 0;
  for (;;) {
    throwIfAborted(options.signal);
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length === buffer.length) return { ok: false, reason: 'grew' };
  }
  return { ok: true, bytes: buffer.subarray(0, length) };
}
