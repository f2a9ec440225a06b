import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { TermTable, type TermList } from '../lexical/codec.js';
import { prepareFile, type PrepareFileInput, type PreparedFile } from './prepare-file.js';
import { compiledModule } from '../package-files.js';

export interface PrepareRequest {
  id: number;
  input: PrepareFileInput;
}

/**
 * The worker's answer. Its chunks' term statistics travel without their list (`table` is
 * left out); `terms` are the terms the worker's list gained since its previous answer, in
 * index order, so the copy on this side stays equal to it.
 */
export type PrepareReply = ({ id: number; file: PreparedFile; error?: undefined } | { id: number; error: string; file?: undefined }) & { terms: string[] };

/** Where a run's files are chunked and tokenized. */
export interface Preparer {
  /** Resolves to the prepared file; rejects with the chunker's error (the file is then skipped). */
  prepare(input: PrepareFileInput): Promise<PreparedFile>;
  /** True when preparation runs beside the caller (so it pays to ask for many files ahead). */
  readonly parallel: boolean;
  close(): Promise<void>;
}

const WORKER_FILE = compiledModule('indexing/prepare-worker.js');

/** On the calling thread: what small runs and the unit tests (no compiled worker) use; one term list per run. */
export function inProcessPreparer(): Preparer {
  const terms = new TermTable();
  return { prepare: (input) => prepareFile(input, terms), parallel: false, close: async () => undefined };
}

/** The worker's term list as this side knows it: grown by each answer's new terms, in order. */
class MirroredTerms implements TermList {
  readonly terms: string[] = [];

  append(fresh: readonly string[]): void {
    for (const term of fresh) this.terms.push(term);
  }
}

/** Points a file's chunk statistics that came from the worker at this side's copy of its list. */
function attachTerms(file: PreparedFile, table: TermList): PreparedFile {
  for (const chunk of file.chunks) chunk.write.termStats.table = table;
  return file;
}

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
  const mirrored = new MirroredTerms();
  // Files prepared here after the worker died point into a list of this thread's own.
  let local: TermTable | undefined;
  const prepareHere = (input: PrepareFileInput) => prepareFile(input, (local ??= new TermTable()));
  const pending = new Map<number, { input: PrepareFileInput; resolve: (file: PreparedFile) => void; reject: (error: Error) => void }>();
  const fallBack = () => {
    if (broken || closed) return;
    broken = true;
    worker = undefined;
    for (const [id, request] of pending) {
      pending.delete(id);
      prepareHere(request.input).then(request.resolve, request.reject);
    }
  };
  const start = (): Worker => {
    const started = new Worker(WORKER_FILE);
    started.on('message', (reply: PrepareReply) => {
      // Every answer's new terms, in the order the worker sent them, whoever is waiting.
      mirrored.append(reply.terms);
      const request = pending.get(reply.id);
      if (!request) return;
      pending.delete(reply.id);
      if (reply.file) request.resolve(attachTerms(reply.file, mirrored));
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
      if (broken) return prepareHere(input);
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
