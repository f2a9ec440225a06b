// The segment prefetch thread (segment-prefetch.ts): reads a restored segment's postings and
// vector matrix on another core for a long-lived process, checking each part as the calling
// thread's own reads do, and hands the bytes over (transferred, not copied), so neither the
// reads nor the first touch of the memory they fill stall the thread that answers searches.
// It reads only the file the caller opened: another file at that path is refused, never read.
import { statSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { type FileIdentity, SegmentError, SegmentReader } from '../../store/segment-file.js';

export interface PrefetchRequest {
  file: string;
  /** The file the caller opened (SegmentReader.identity). */
  identity: FileIdentity;
  /** Most bytes and terms of postings one message carries. */
  batchBytes: number;
  batchTerms: number;
  matrix: boolean;
  /** Set to 1 by the caller to stop: looked at between reads (a thread terminated from outside would leave its file open). */
  stop: Int32Array;
}

export type PrefetchMessage =
  | { type: 'postings'; from: number; to: number; buffer: ArrayBuffer }
  | { type: 'matrix'; buffer: ArrayBuffer }
  | { type: 'done' }
  /** Stopped by the caller's flag, after the postings of `at` terms. */
  | { type: 'stopped'; at: number }
  /** damaged: a part failed its check (the caller's index is rebuilt); refused: this thread could not read the caller's file. */
  | { type: 'damaged' | 'refused'; message: string };

const port = parentPort;
if (!port) throw new Error('prefetch-worker runs as a worker thread');
const request = workerData as PrefetchRequest;
const send = (message: PrefetchMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

// Below the threads that answer searches. Linux keeps a nice value per thread; elsewhere it
// would lower the whole process, so it is left alone there.
if (process.platform === 'linux') {
  try {
    setPriority(19);
  } catch {
    // not allowed here: the thread runs at the process's priority
  }
}

/** Whether a file is the caller's: segments are written whole and renamed into place, so the same inode, size and time are the same bytes. */
const theCallers = (found: FileIdentity): boolean => {
  const wanted = request.identity;
  return found.dev === wanted.dev && found.ino === wanted.ino && found.size === wanted.size && found.mtimeMs === wanted.mtimeMs;
};

/** Whether the open reader (else the file at the path now) is the caller's. */
function isTheCallers(open: SegmentReader | undefined): boolean {
  try {
    return theCallers(open ? open.identity() : statSync(request.file));
  } catch {
    return false;
  }
}

let reader: SegmentReader | undefined;
try {
  reader = SegmentReader.open(request.file);
  if (!theCallers(reader.identity())) {
    send({ type: 'refused', message: 'the segment file was replaced' });
  } else {
    const offsets = reader.lexical.postingOffsets;
    const terms = reader.lexical.postingTerms.length;
    const stopped = (): boolean => Atomics.load(request.stop, 0) !== 0;
    let from = 0;
    while (from < terms && !stopped()) {
      let to = from + 1;
      while (to < terms && to - from < request.batchTerms && 8 * ((offsets[to + 1] as number) - (offsets[from] as number)) <= request.batchBytes) to++;
      const buffer = reader.postingRange(from, to);
      send({ type: 'postings', from, to, buffer }, [buffer]);
      from = to;
    }
    const matrix = request.matrix && !stopped() ? reader.vectors?.matrix() : undefined;
    if (matrix) {
      // Its own buffer, whole (a transfer moves the buffer, so a view into a larger one is copied first).
      const buffer = matrix.byteOffset === 0 && matrix.byteLength === matrix.buffer.byteLength ? (matrix.buffer as ArrayBuffer) : (matrix.slice().buffer as ArrayBuffer);
      send({ type: 'matrix', buffer }, [buffer]);
    }
    send(stopped() ? { type: 'stopped', at: from } : { type: 'done' });
  }
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  // Damage counts only in the caller's own file: a file put at the path since (one that failed to open) is refused.
  send({ type: error instanceof SegmentError && error.damaged && isTheCallers(reader) ? 'damaged' : 'refused', message });
} finally {
  reader?.close();
}
