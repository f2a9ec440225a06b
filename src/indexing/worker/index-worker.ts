// The indexing worker: walks, chunks, embeds and writes on its own thread and its own
// SQLite connection, at lowered OS priority, so the thread that answers searches is never
// held up by indexing. The engine starts one per run (src/indexing/worker/run-in-worker.ts);
// the job itself is src/indexing/index-job.ts, the same one the engine runs in-process.
import { getPriority, setPriority } from 'node:os';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { isLociError } from '../../errors/index.js';
import type { IndexEvent, IndexSummary } from '../events.js';
import type { WorkerCommand, WorkerJob, WorkerReply } from './protocol.js';
import { runWorkerJob } from './worker-job.js';

const port = parentPort;
if (!port) throw new Error('index-worker.js runs as a worker thread; the engine starts it.');
const job = workerData as WorkerJob;
const controller = new AbortController();
port.on('message', (command: WorkerCommand) => {
  if (command.type === 'abort') controller.abort(new Error('cancelled by the caller'));
});
const reply = (message: WorkerReply) => port.postMessage(message);

/** Lowers this thread's priority only: on Linux, setpriority(0) applies to the calling thread. */
function lowerPriority(niceness: number): number | null {
  try {
    if (niceness > 0) setPriority(niceness);
    return getPriority();
  } catch {
    return null; // not permitted here: run at normal priority rather than not at all
  }
}

function run(): Promise<IndexSummary> {
  return runWorkerJob(job, { signal: controller.signal, onProgress: (event: IndexEvent) => reply({ type: 'event', event }) });
}

reply({ type: 'started', niceness: lowerPriority(job.niceness), threadId });
run()
  .then(
    (summary) => reply({ type: 'done', summary }),
    (error: unknown) => {
      if (isLociError(error)) reply({ type: 'failed', error: { code: error.code, message: error.message, hint: error.hint, details: error.details } });
      else reply({ type: 'failed', error: { message: error instanceof Error ? error.message : String(error), ...(error instanceof Error && error.stack ? { stack: error.stack } : {}) } });
    },
  )
  .finally(() => port.close()); // the open port would keep the thread alive
