// The vector-graph worker: while a big run writes, it reads the committed rows' vectors on its
// own SQLite connection and adds them to an HNSW graph on its own thread (the second core), so
// the graph is ready when the run ends instead of built after it. Started and finished by
// background-graph.ts; at `finish` it reads the last rows, saves the graph file and its key
// list (each through a rename) and answers `saved`. A stopped worker saves nothing.
import { availableParallelism } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createGraph, loadUsearch, writeGraphFiles } from '../retrieve/warm/usearch-graph.js';
import { VectorRowReader } from '../store/sqlite/vector-rows.js';
import { FileIdentity } from '../store/sqlite/file-identity.js';
import type { GraphWorkerData, GraphWorkerReply } from './background-graph.js';

const port = parentPort;
if (!port) throw new Error('graph-worker.js runs as a worker thread; background-graph.ts starts it.');
const job = workerData as GraphWorkerData;
/** Rows read (and added) per step: one read transaction each, a turn of the event loop between. */
const ROWS_PER_STEP = 2_048;
/**
 * Once the run has written its last row, the indexing thread only waits for this one: the rows
 * left are added on every core, in bigger steps so each call has work for all of them. (At 1M
 * chunks the graph is still ~40 % behind when the run's writing ends.)
 */
const ROWS_PER_STEP_FINISHING = 16_384;
const THREADS_FINISHING = Math.max(1, Math.min(job.finishThreads ?? availableParallelism(), 8));
/** How long to wait for more commits when it has read every row so far. */
const POLL_MS = 100;

let finishing = false;
port.on('message', (message: { type: 'finish' }) => {
  if (message.type === 'finish') finishing = true;
});
const reply = (message: GraphWorkerReply) => port.postMessage(message);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function build(): Promise<number> {
  const module = loadUsearch();
  if (!module) throw new Error('usearch is not installed');
  const graph = createGraph(module, job.dimensions, job.hnsw);
  const opened = new FileIdentity(job.storeFile);
  // Only ids and vectors are read: no chunk text or term lists (this thread is a big run's last step).
  const reader = new VectorRowReader(job.storeFile);
  const keys: Int32Array[] = [];
  let count = 0;
  try {
    let after = 0;
    for (;;) {
      // Finishing: the run has committed its last row and waits for this worker alone.
      const last = finishing;
      const step = reader.read(job.embedderId, after, last ? ROWS_PER_STEP_FINISHING : ROWS_PER_STEP, job.dimensions);
      if (step.last !== after) {
        after = step.last;
        if (step.rowIds.length > 0) {
          // One thread while the run that writes these rows has the other core; all once it is done.
          // An add that grows the graph reserves room for as many threads as it is given, and later
          // adds may use no more: those few adds get them all, so the last ones can use them.
          const grows = graph.size() + step.rowIds.length >= graph.capacity();
          graph.add(
            BigUint64Array.from(step.rowIds, (rowId) => BigInt(rowId)),
            step.matrix,
            last || grows ? THREADS_FINISHING : 1,
          );
          keys.push(step.rowIds);
          count += step.rowIds.length;
        }
        reply({ type: 'progress', rows: count });
        await pause(0);
        continue;
      }
      if (finishing) break;
      await pause(POLL_MS);
    }
    const all = new Int32Array(count);
    let at = 0;
    for (const part of keys) {
      all.set(part, at);
      at += part.length;
    }
    // A store deleted or replaced meanwhile (`rm -rf .loci`, then another index): this graph is not the new store's (STORE_GONE: failed).
    opened.check(job.storeFile);
    writeGraphFiles(graph, all, job.graphFile, reader.storeInstance());
    return count;
  } finally {
    reader.close();
  }
}

build()
  .then(
    (rows) => reply({ type: 'saved', rows }),
    (error: unknown) => reply({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
  )
  .finally(() => port.close());
