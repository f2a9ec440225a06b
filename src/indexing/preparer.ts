import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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
 * Prepare workers for a big run: one per core, at most 4. On 2 cores the indexing thread
 * waits for a single worker about half the time on a repository (vuejs/core: tree-sitter and
 * tokenizing are most of a run), and the operating system shares the cores among them.
 */
export function defaultPrepareWorkers(): number {
  return Math.max(1, Math.min(availableParallelism(), 4));
}

interface PendingRequest {
  input: PrepareFileInput;
  resolve: (file: PreparedFile) => void;
  reject: (error: Error) => void;
}

/** One worker thread, its requests in flight, and this side's copy of its term list. */
interface Lane {
  worker: Worker | undefined;
  dead: boolean;
  readonly mirrored: MirroredTerms;
  readonly pending: Map<number, PendingRequest>;
}

/**
 * On worker threads (prepare-worker.ts), started as files arrive: the indexing thread embeds
 * and writes one group while the workers prepare the next ones. Each file goes to the worker
 * with the fewest files in flight; each worker keeps its own term list, mirrored here, so a
 * chunk's statistics point into its worker's list (stores resolve term ids per list). The
 * same code runs on both sides, so the rows written are the same. If a worker dies (a
 * grammar's crash, out of memory), the files it held are prepared on the calling thread and
 * later ones go to the others, or here once none is left: nothing is lost. Undefined when
 * the compiled worker is not there. `workerFile`: another worker script (tests that make a
 * worker die).
 */
export function workerPreparer(workers = defaultPrepareWorkers(), workerFile: URL = WORKER_FILE): Preparer | undefined {
  if (workerFile.protocol !== 'file:' || !existsSync(fileURLToPath(workerFile))) return undefined;
  let closed = false;
  let nextId = 0;
  const lanes: Lane[] = Array.from({ length: Math.max(1, workers) }, () => ({ worker: undefined, dead: false, mirrored: new MirroredTerms(), pending: new Map() }));
  // Files prepared here after a worker died point into a list of this thread's own.
  let local: TermTable | undefined;
  const prepareHere = (input: PrepareFileInput) => prepareFile(input, (local ??= new TermTable()));
  const fallBack = (lane: Lane) => {
    if (lane.dead || closed) return;
    lane.dead = true;
    lane.worker = undefined;
    for (const [id, request] of lane.pending) {
      lane.pending.delete(id);
      prepareHere(request.input).then(request.resolve, request.reject);
    }
  };
  const start = (lane: Lane): Worker => {
    const started = new Worker(workerFile);
    started.on('message', (reply: PrepareReply) => {
      // Every answer's new terms, in the order this worker sent them, whoever is waiting.
      lane.mirrored.append(reply.terms);
      const request = lane.pending.get(reply.id);
      if (!request) return;
      lane.pending.delete(reply.id);
      if (reply.file) request.resolve(attachTerms(reply.file, lane.mirrored));
      else request.reject(new Error(reply.error));
    });
    started.on('error', () => fallBack(lane));
    started.on('exit', () => fallBack(lane));
    return started;
  };
  /** The live lane with the fewest files in flight (the first such), or undefined when every worker died. */
  const idlest = (): Lane | undefined => {
    let best: Lane | undefined;
    for (const lane of lanes) if (!lane.dead && (!best || lane.pending.size < best.pending.size)) best = lane;
    return best;
  };
  return {
    parallel: true,
    prepare(input) {
      if (closed) return Promise.reject(new Error('the run has ended'));
      let lane = idlest();
      let worker: Worker | undefined;
      while (lane && !worker) {
        try {
          worker = lane.worker ??= start(lane);
        } catch {
          // A worker that cannot start (out of memory, a failed init): the others take its share.
          lane.dead = true;
          lane = idlest();
        }
      }
      if (!lane || !worker) return prepareHere(input);
      const [chosen, running] = [lane, worker];
      const id = nextId++;
      return new Promise<PreparedFile>((resolve, reject) => {
        chosen.pending.set(id, { input, resolve, reject });
        running.postMessage({ id, input } satisfies PrepareRequest);
      });
    },
    async close() {
      closed = true;
      const running: Worker[] = [];
      for (const lane of lanes) {
        for (const request of lane.pending.values()) request.reject(new Error('the run has ended'));
        lane.pending.clear();
        if (lane.worker) running.push(lane.worker);
        lane.worker = undefined;
      }
      await Promise.all(running.map((worker) => worker.terminate()));
    },
  };
}
