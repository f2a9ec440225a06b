// The segment prefetch thread (segment-prefetch.ts): reads a restored segment's postings and
// vector matrix on another core for a long-lived process, checking each part as the calling
// thread's own reads do, and hands the bytes over (transferred, not copied), so neither the
// reads nor the first touch of the memory they fill stall the thread that answers searches.
// It reads only the file the caller opened: another file at that path is refused, never read.
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
  /** A term whose postings are longer comes as a range of its own, so its bytes are freed once its list grows (a copy). */
  ownRangeBytes: number;
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

/** Bytes of the vector matrix read between looks at the stop flag. */
const MATRIX_STEP = 16 * 1024 * 1024;

const stopped = (): boolean => Atomics.load(request.stop, 0) !== 0;
let reader: SegmentReader | undefined;
try {
  // Only the caller's own file (checked before anything is read): any other at the path is refused, never read.
  reader = SegmentReader.open(request.file, request.identity);
  const offsets = reader.lexical.postingOffsets;
  const terms = reader.lexical.postingTerms.length;
  const bytesOf = (from: number, to: number): number => 8 * ((offsets[to] as number) - (offsets[from] as number));
  let from = 0;
  while (from < terms && !stopped()) {
    let to = from + 1;
    if (bytesOf(from, to) <= request.ownRangeBytes) {
      while (to < terms && to - from < request.batchTerms && bytesOf(to, to + 1) <= request.ownRangeBytes && bytesOf(from, to + 1) <= request.batchBytes) to++;
    }
    const buffer = reader.postingRange(from, to);
    send({ type: 'postings', from, to, buffer }, [buffer]);
    from = to;
  }
  const matrixReader = request.matrix && !stopped() ? reader.vectors?.matrixReader?.() : undefined;
  let matrix: Float32Array | undefined;
  while (matrixReader && !matrix && !stopped()) matrix = matrixReader.step(MATRIX_STEP);
  if (matrix && !stopped()) {
    // Its own buffer, whole (a transfer moves the buffer, so a view into a larger one is copied first).
    const buffer = matrix.byteOffset === 0 && matrix.byteLength === matrix.buffer.byteLength ? (matrix.buffer as ArrayBuffer) : (matrix.slice().buffer as ArrayBuffer);
    send({ type: 'matrix', buffer }, [buffer]);
  }
  send(stopped() ? { type: 'stopped', at: from } : { type: 'done' });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  // The file was the caller's (open checked it first): damage found in it is damage.
  send({ type: error instanceof SegmentError && error.damaged ? 'damaged' : 'refused', message });
} finally {
  reader?.close();
}
