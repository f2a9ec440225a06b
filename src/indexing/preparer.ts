import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { prepareFile, type PrepareFileInput, type PreparedFile } from './prepare-file.js';
import { compiledModule } from '../package-files.js';

export interface PrepareRequest {
  id: number;
  input: PrepareFileInput;
}

export type PrepareReply = { id: number; file: PreparedFile; error?: undefined } | { id: number; error: string; file?: undefined };

/** Where a run's files are chunked and tokenized. */
export interface Preparer {
  /** Resolves to the prepared file; rejects with the chunker's error (the file is then skipped). */
  prepare(input: PrepareFileInput): Promise<PreparedFile>;
  /** True when preparation runs beside the caller (so it pays to ask for many files ahead). */
  readonly parallel: boolean;
  close(): Promise<void>;
}

const WORKER_FILE = compiledModule('indexing/prepare-worker.js');

/** On the calling thread: what small runs and the unit tests (no compiled worker) use. */
export const inProcessPreparer: Preparer = { prepare: prepareFile, parallel: false, close: async () => undefined };

/**
 * On a worker thread (prepare-worker.ts), started at the first file: the indexing thread then
 * embeds and writes one group while the worker prepares the next, on the second core. The
 * same code runs on both sides, so the rows written are the same. If the worker dies (a
 * grammar's crash, out of memory), the files it held and every later one are prepared on the
 * calling thread instead: nothing is lost. Undefined when the compiled worker is not there.
 */
export function workerPreparer(): Preparer | undefined {
  if (WORKER_FILE.protocol !== 'file:' || !existsSync(fileURLToPath(WORKER_FILE))) return undefined;
  let worker: Worker | undefined;
  let broken = false;
  let closed = false;
  let nextId = 0;
  const pending = new Map<number, { input: PrepareFileInput; resolve: (file: PreparedFile) => void; reject: (error: Error) => void }>();
  const fallBack = () => {
    if (broken || closed) return;
    broken = true;
    worker = undefined;
    for (const [id, request] of pending) {
      pending.delete(id);
      prepareFile(request.input).then(request.resolve, request.reject);
    }
  };
  const start = (): Worker => {
    const started = new Worker(WORKER_FILE);
    started.on('message', (reply: PrepareReply) => {
      const request = pending.get(reply.id);
      if (!request) return;
      pending.delete(reply.id);
      if (reply.file) request.resolve(reply.file);
      else request.reject(new Error(reply.error));
    });
    started.on('error', fallBack);
    started.on('exit', fallBack);
    return started;
  };
  return {
    parallel: true,
    prepare(input) {
      if (closed) return Promise.reject(new Error('the run has ended'));
      if (broken) return prepareFile(input);
      worker ??= start();
      const id = nextId++;
      return new Promise<PreparedFile>((resolve, reject) => {
        pending.set(id, { input, resolve, reject });
        worker?.postMessage({ id, input } satisfies PrepareRequest);
      });
    },
    async close() {
      closed = true;
      for (const request of pending.values()) request.reject(new Error('the run has ended'));
      pending.clear();
      const running = worker;
      worker = undefined;
      await running?.terminate();
    },
  };
}
