import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { compiledModule } from '../../package-files.js';
import { type FileIdentity, SegmentError } from '../../store/segment-file.js';
import type { PrefetchMessage, PrefetchRequest } from './prefetch-worker.js';
import type { PostingRange } from './restored-postings.js';

const WORKER_FILE = compiledModule('retrieve/warm/prefetch-worker.js');
/** Postings one message carries at most: a few milliseconds of the thread's reading, a moment of the caller's. */
const BATCH_BYTES = 4 << 20;
const BATCH_TERMS = 20_000;
/** A term's postings longer than this (2,048 postings) come alone: a list that grows is copied, and then its bytes are freed, while a range is held as long as any of its views is (at 1M rows 2,294 terms, 244 of the 357 MB). */
const OWN_RANGE_BYTES = 16 * 1024;
/** How often a running thread looks whether its index is still wanted (it is stopped once not). */
const CHECK_MS = 250;

export interface PrefetchTargets {
  /** Where the file's postings go, a range of terms at a time. */
  postings(range: PostingRange): void;
  /** Where the whole vector matrix goes, read and checked (absent: the thread reads no matrix). */
  matrix?: ((matrix: Float32Array) => void) | undefined;
  /** Still wanted: false stops the thread (the index was replaced, reset or closed). */
  current(): boolean;
  /** A part failed its check: the index is rebuilt from the store. */
  damaged(error: SegmentError): void;
  /** Everything was read and handed over. */
  finished(): void;
  /** The thread stopped on request (current() false), after reading the postings of `terms` terms. */
  stopped?(terms: number): void;
  /** The thread ended before reading everything (refused the file, failed): the caller reads the rest on its own thread. */
  fallback(reason: string): void;
}

/**
 * Reads a restored segment's postings, then its vector matrix, on a worker thread
 * (prefetch-worker.ts) and hands each part to `targets` on this thread. The thread never keeps
 * the process alive and runs below the priority of the threads that answer searches. False when
 * no thread can be had (no compiled worker file, a limit on threads): read on this thread instead.
 */
export function prefetchOnThread(
  file: string,
  identity: FileIdentity,
  targets: PrefetchTargets,
  options: { workerFile?: URL; batchBytes?: number; batchTerms?: number; ownRangeBytes?: number } = {},
): boolean {
  const { workerFile = WORKER_FILE, batchBytes = BATCH_BYTES, batchTerms = BATCH_TERMS, ownRangeBytes = OWN_RANGE_BYTES } = options;
  if (workerFile.protocol !== 'file:' || !existsSync(fileURLToPath(workerFile))) return false;
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const workerData: PrefetchRequest = { file, identity, batchBytes, batchTerms, ownRangeBytes, matrix: targets.matrix !== undefined, stop };
  let worker: Worker;
  try {
    // The heap holds the segment's eager tables while the thread runs (its byte arrays live outside it).
    worker = new Worker(workerFile, { workerData, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  } catch {
    return false;
  }
  worker.unref();
  let ended = false;
  // Stopped by a flag the thread reads between reads, so it closes its file on the way out.
  const end = (): void => {
    ended = true;
    clearInterval(watch);
    Atomics.store(stop, 0, 1);
  };
  const watch = setInterval(() => {
    if (!ended && !targets.current()) end();
  }, CHECK_MS);
  watch.unref();
  worker.on('message', (message: PrefetchMessage) => {
    if (message.type === 'stopped') return targets.stopped?.(message.at);
    if (ended) return;
    if (!targets.current()) return end();
    try {
      if (message.type === 'postings') targets.postings(message);
      else if (message.type === 'matrix') targets.matrix?.(new Float32Array(message.buffer));
      else {
        end();
        if (message.type === 'done') targets.finished();
        else if (message.type === 'damaged') targets.damaged(new SegmentError(message.message));
        else targets.fallback(message.message);
      }
    } catch (error) {
      end();
      if (error instanceof SegmentError) targets.damaged(error);
      else targets.fallback((error as Error).message);
    }
  });
  const failed = (reason: string): void => {
    if (ended) return;
    end();
    if (targets.current()) targets.fallback(reason);
  };
  worker.on('error', (error) => failed(error.message));
  worker.on('exit', (code) => failed(`the prefetch thread exited (${code})`));
  return true;
}
