import type { IndexJobSpec } from '../indexing/index-job.js';
import type { IndexProgressListener, IndexSummary } from '../indexing/events.js';
import type { WorkerJob } from '../indexing/worker/protocol.js';
import { MEMORY_DATABASE, segmentFile, storeFilePaths, vectorGraphFile, type StoreLocation } from '../store/location.js';
import type { LociConfig } from '../config/schema.js';
import { graphBuildStarted } from '../retrieve/warm/graph-builds.js';
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
  // The worker builds the run's vector graph beside it (when the run grows big enough): this
  // thread's warm index answers vector searches exactly meanwhile instead of building the same
  // graph itself (1.3 s of a blocked event loop at 22k chunks), and maps the file once saved.
  const release = job.graphFile ? graphBuildStarted(job.graphFile) : undefined;
  try {
    return await runInWorker(workerJob, {
      ...pickRun(runOptions),
      memoryMb: context.indexing.workerMemoryMb,
      ...(onProgress ? { onStarted: (info: { threadId: number; niceness: number | null }) => onProgress({ type: 'worker-started', ...info }) } : {}),
    });
  } finally {
    release?.();
  }
}

/** The job an engine runs: whole-folder runs save the graph and the segment for the next process. */
export function jobSpecFor(
  engine: { root: string; config: LociConfig; location: StoreLocation; embedderId: string; keepsNothing: boolean },
  options: { progressive: boolean; spec: string; paths?: string[] },
): IndexJobSpec {
  // Not the graph of engines keeping nothing in memory, nor of watcher batches.
  const graphFile = options.paths || engine.keepsNothing ? undefined : vectorGraphFile(engine.location, engine.embedderId, 'index');
  // The segment file serves one-shot processes too, so it is written whatever the engine keeps in memory.
  const segment = options.paths ? undefined : segmentFile(engine.location, engine.embedderId);
  return {
    root: engine.root,
    config: engine.config,
    excludeAbsolutePaths: storeFilePaths(engine.location, engine.root, MEMORY_DATABASE),
    progressive: options.progressive,
    embedderSpec: options.spec,
    ...(options.paths ? { paths: options.paths } : {}),
    ...(graphFile ? { graphFile } : {}),
    ...(segment ? { segmentFile: segment } : {}),
  };
}
