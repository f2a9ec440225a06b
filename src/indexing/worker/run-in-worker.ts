import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LociError, type ErrorCode } from '../../errors/index.js';
import { errorCodes } from '../../errors/codes.js';
import type { IndexProgressListener, IndexSummary } from '../events.js';
import type { WorkerCommand, WorkerJob, WorkerReply } from './protocol.js';
import { compiledModule } from '../../package-files.js';

const WORKER_FILE = compiledModule('indexing/worker/index-worker.js');
/** After an abort, how long the worker may take to finish the file in flight before it is stopped. */
const ABORT_GRACE_MS = 10_000;

/**
 * Whether the compiled worker is there to start. Running from TypeScript sources (the unit
 * tests) it is not, and indexing runs in-process instead.
 */
export function workerAvailable(): boolean {
  return WORKER_FILE.protocol === 'file:' && existsSync(fileURLToPath(WORKER_FILE));
}

export interface WorkerRunOptions {
  signal?: AbortSignal;
  onProgress?: IndexProgressListener;
  /** Heap limit of the worker (MB): a runaway run fails with a clear error, not the process. */
  memoryMb: number;
  /** Told the worker's thread id and the niceness it runs at (null: could not be read). */
  onStarted?: (info: { threadId: number; niceness: number | null }) => void;
}

/** Runs one indexing job on a worker thread; events arrive as they happen, errors keep their codes. */
export function runInWorker(job: WorkerJob, options: WorkerRunOptions): Promise<IndexSummary> {
  return new Promise<IndexSummary>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new LociError('ABORTED', 'The operation was cancelled.', { cause: options.signal.reason }));
      return;
    }
    const worker = new Worker(WORKER_FILE, { workerData: job, resourceLimits: { maxOldGenerationSizeMb: options.memoryMb } });
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', onAbort);
      if (graceTimer) clearTimeout(graceTimer);
      outcome();
    };
    const onAbort = () => {
      worker.postMessage({ type: 'abort' } satisfies WorkerCommand);
      graceTimer = setTimeout(() => {
        // Each group of files is one transaction: stopping mid-group loses only that group.
        void worker.terminate();
        // terminate() never finishes while the worker is stuck in a blocking call (a read
        // that never returns); the caller gets its answer anyway.
        settle(() => reject(new LociError('ABORTED', 'The operation was cancelled; the indexing worker did not stop in time and was stopped.', { cause: options.signal?.reason })));
      }, ABORT_GRACE_MS);
      graceTimer.unref();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: WorkerReply) => {
      switch (message.type) {
        case 'started':
          options.onStarted?.({ threadId: message.threadId, niceness: message.niceness });
          break;
        case 'event':
          options.onProgress?.(message.event);
          break;
        case 'done':
          settle(() => resolve(message.summary));
          break;
        case 'failed':
          settle(() => reject(reviveError(message.error)));
          break;
      }
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(() =>
        reject(
          new LociError('INDEX_WORKER_FAILED', outOfMemory ? `The indexing worker ran out of memory (limit ${options.memoryMb} MB).` : `The indexing worker stopped: ${error.message}`, {
            cause: error,
            details: { memoryMb: options.memoryMb },
          }),
        ),
      );
    });
    worker.on('exit', (code) => {
      if (options.signal?.aborted) settle(() => reject(new LociError('ABORTED', 'The operation was cancelled.', { cause: options.signal?.reason })));
      else settle(() => reject(new LociError('INDEX_WORKER_FAILED', `The indexing worker exited (code ${code}) before it finished.`)));
    });
  });
}

function reviveError(error: Extract<WorkerReply, { type: 'failed' }>['error']): Error {
  if (error.code && error.code in errorCodes) {
    return new LociError(error.code as ErrorCode, error.message, { ...(error.hint ? { hint: error.hint } : {}), ...(error.details ? { details: error.details } : {}) });
  }
  const revived = new LociError('INTERNAL', `Indexing failed: ${error.message}`);
  if (error.stack) revived.stack = error.stack;
  return revived;
}
