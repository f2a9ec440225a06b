import { registerBuiltInEmbedders } from '../../embed/providers.js';
import { resolveRequestedEmbedder } from '../../embed/registry.js';
import { openStore } from '../../store/location.js';
import type { IndexEvent, IndexSummary } from '../events.js';
import { runIndexJob } from '../index-job.js';
import type { WorkerJob } from './protocol.js';

/**
 * What the worker thread runs, callable from any thread (unit tests call it directly): open
 * a store connection of its own, resolve the embedder from its spec, run the one indexing job.
 */
export async function runWorkerJob(job: WorkerJob, options: { signal?: AbortSignal; onProgress?: (event: IndexEvent) => void } = {}): Promise<IndexSummary> {
  registerBuiltInEmbedders();
  // The engine opened (and quick-checked) this store just before starting the worker.
  const store = await openStore(job.location, { create: true, quickCheck: false });
  try {
    // The engine recorded the embedder (and its size) before starting the worker: no second probe.
    const { model } = await resolveRequestedEmbedder(job.embedderSpec, { config: job.config, env: job.env, recordedEmbedderId: (await store.getMeta()).embedderId });
    return await runIndexJob(job, { store, model, ...options });
  } finally {
    await store.close();
  }
}
