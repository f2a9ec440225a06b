// The vector-graph worker: while a big run writes, it reads the committed rows' vectors on its
// own SQLite connection and adds them to an HNSW graph on its own thread (the second core), so
// the graph is ready when the run ends instead of built after it. Started and finished by
// background-graph.ts; at `finish` it reads the last rows, saves the graph file and its key
// list (each through a rename) and answers `saved`. A stopped worker saves nothing.
import { availableParallelism } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createGraph, loadUsearch, normalized, writeGraphFiles } from '../retrieve/warm/usearch-graph.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
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
  const store = openSqliteStore({ file: job.storeFile, keepCatalogEntries: 0, quickCheck: false });
  const keys: number[] = [];
  try {
    let after = 0;
    for (;;) {
      // Finishing: the run has committed its last row and waits for this worker alone.
      const last = finishing;
      const rows = await store.scanIndexRows({ embedderId: job.embedderId, afterRowId: after, limit: last ? ROWS_PER_STEP_FINISHING : ROWS_PER_STEP });
      if (rows.length > 0) {
        after = rows.at(-1)?.rowId ?? after;
        const withVectors = rows.filter((row) => row.vector && row.vector.length === job.dimensions);
        if (withVectors.length > 0) {
          const matrix = new Float32Array(withVectors.length * job.dimensions);
          withVectors.forEach((row, index) => matrix.set(normalized(row.vector as Float32Array), index * job.dimensions));
          // One thread while the run that writes these rows has the other core; all once it is done.
          // An add that grows the graph reserves room for as many threads as it is given, and later
          // adds may use no more: those few adds get them all, so the last ones can use them.
          const grows = graph.size() + withVectors.length >= graph.capacity();
          graph.add(
            BigUint64Array.from(withVectors, (row) => BigInt(row.rowId)),
            matrix,
            last || grows ? THREADS_FINISHING : 1,
          );
          for (const row of withVectors) keys.push(row.rowId);
        }
        reply({ type: 'progress', rows: keys.length });
        await pause(0);
        continue;
      }
      if (finishing) break;
      await pause(POLL_MS);
    }
    writeGraphFiles(graph, Int32Array.from(keys), job.graphFile);
    return keys.length;
  } finally {
    await store.close();
  }
}

build()
  .then(
    (rows) => reply({ type: 'saved', rows }),
    (error: unknown) => reply({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
  )
  .finally(() => port.close());
