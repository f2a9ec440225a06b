import type { IndexJobSpec } from '../indexing/index-job.js';
import type { IndexProgressListener, IndexSummary } from '../indexing/events.js';
import type { WorkerJob } from '../indexing/worker/protocol.js';
import { segmentFile, type StoreLocation } from '../store/location.js';
import type { LociConfig } from '../config/schema.js';
import type { RunOptions } from './engine-types.js';

export function pickRun(options: RunOptions): { signal?: AbortSignal; onProgress?: IndexProgressListener } {
  return { ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) };
}

/** Runs an indexing job on the worker thread (the engine decided it can and is worth it). */
export async function runJobInWorker(
  job: IndexJobSpec,
  runOptions: RunOptions,
  context: { location: StoreLocation; embedderId: string; env: Record<string, string | undefined>; indexing: LociConfig['indexing'] },
): Promise<IndexSummary> {
  const { runInWorker } = await import('../indexing/worker/run-in-worker.js');
  const onProgress = runOptions.onProgress;
  // A batch of paths merges the segment file in the worker, once the store has moved far from it.
  const segment = job.paths ? segmentFile(context.location, context.embedderId) : undefined;
  const workerJob: WorkerJob = {
    ...job,
    ...(segment ? { segmentFile: segment, mergePastThreshold: true } : {}),
    location: context.location,
    env: { ...context.env },
    niceness: context.indexing.workerNiceness,
  };
  return runInWorker(workerJob, {
    ...pickRun(runOptions),
    memoryMb: context.indexing.workerMemoryMb,
    ...(onProgress ? { onStarted: (info: { threadId: number; niceness: number | null }) => onProgress({ type: 'worker-started', ...info }) } : {}),
  });
}
