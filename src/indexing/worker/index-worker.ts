// The indexing worker: walks, chunks, embeds and writes on its own thread and its own
// SQLite connection, at lowered OS priority, so the thread that answers searches is never
// held up by indexing. The engine starts one per run (src/indexing/worker/run-in-worker.ts).
import { getPriority, setPriority } from 'node:os';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { CHUNKER_FINGERPRINT } from '../../chunk/index.js';
import { registerBuiltInEmbedders } from '../../embed/providers.js';
import { resolveEmbedder } from '../../embed/registry.js';
import { embedderIdOf } from '../../embed/spec.js';
import { isLociError } from '../../errors/index.js';
import { defaultHnswOptions } from '../../retrieve/warm/hnsw-vector-index.js';
import { WarmIndex } from '../../retrieve/warm/warm-index.js';
import { openStore } from '../../store/location.js';
import type { Store } from '../../store/spec.js';
import type { IndexEvent, IndexSummary } from '../events.js';
import { indexFolder } from '../index-folder.js';
import { indexPaths } from '../run-index.js';
import type { WorkerCommand, WorkerJob, WorkerReply } from './protocol.js';

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

async function persistGraph(store: Store, embedderId: string, dimensions: number): Promise<void> {
  if (!job.graphFile || embedderId === 'none') return;
  if ((await store.counts()).chunks < defaultHnswOptions.threshold) return;
  const warm = new WarmIndex(store, { weights: job.config.search.fieldWeights, embedderId, dimensions, graphFile: job.graphFile });
  await warm.persist();
}

async function run(): Promise<IndexSummary> {
  registerBuiltInEmbedders();
  // The engine opened (and quick-checked) this store just before starting the worker.
  const store = await openStore(job.location, { create: true, quickCheck: false });
  try {
    const model = await resolveEmbedder(job.embedder, { config: job.config, env: job.env });
    const embedderId = model ? embedderIdOf(model) : 'none';
    const onProgress = (event: IndexEvent) => reply({ type: 'event', event });
    const base = {
      root: job.root,
      store,
      model,
      embedderId,
      chunker: CHUNKER_FINGERPRINT,
      chunking: job.config.chunking,
      maxFileBytes: job.config.sources.maxFileBytes,
      exclude: job.config.sources.exclude,
      respectGitignore: job.config.sources.respectGitignore,
      excludeAbsolutePaths: job.excludeAbsolutePaths,
      indexSecrets: job.config.sources.indexSecrets,
      signal: controller.signal,
      onProgress,
    };
    const summary = job.paths
      ? await indexPaths({ ...base, paths: job.paths })
      : await indexFolder({ ...base, progressive: job.progressive, keepUnreferenced: job.config.cache.maxUnreferencedVectors });
    if (summary.files.indexed + summary.files.removed > 0) await persistGraph(store, embedderId, model?.dimensions ?? 0);
    return summary;
  } finally {
    await store.close();
  }
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

