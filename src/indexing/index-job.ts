import { existsSync } from 'node:fs';
import { CHUNKER_FINGERPRINT } from '../chunk/index.js';
import { claimStoreContent } from './store-content.js';
import type { LociConfig } from '../config/schema.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import { defaultHnswOptions } from '../retrieve/warm/exact-or-graph-vector-index.js';
import { SEGMENT_REWRITE_MIN, WarmIndex, type WarmIndexOptions } from '../retrieve/warm/warm-index.js';
import { ensureStoreInstance, storeInstanceOf, vectorRows } from '../retrieve/warm/warm-segment.js';
import { dropUnreadableGraph, loadUsearch } from '../retrieve/warm/usearch-graph.js';
import { readSegmentHeader } from '../store/segment-file.js';
import type { Store } from '../store/spec.js';
import { BackgroundGraph, type BackgroundGraphOptions } from './background-graph.js';
import type { IndexProgressListener, IndexSummary } from './events.js';
import { indexFolder, saveRunSummary } from './index-folder.js';
import { indexPaths } from './run-index.js';

/**
 * One indexing run, as plain data: the engine runs it in-process or hands it to the
 * indexing worker (structured-cloneable, so it crosses the thread boundary unchanged).
 */
export interface IndexJobSpec {
  root: string;
  config: LociConfig;
  /** Folders never walked (the store, when it lives inside the root). */
  excludeAbsolutePaths: string[];
  /** A whole-folder run, or just these paths (the watcher's batches). */
  paths?: string[];
  /** Two phases (chunks and BM25 first, vectors second); whole-folder runs only. */
  progressive: boolean;
  /** Save the vector graph here after a run that changed files, so the next search loads it. */
  graphFile?: string;
  /** Save the index as a segment file here after a run that changed files, so the next process starts from it. */
  segmentFile?: string;
  /**
   * Rewrite the segment file only once the store has moved far from it (the watcher's
   * batches, run in the worker: the merge happens off the main thread, not at every batch).
   */
  mergePastThreshold?: boolean;
  /** The embedder as the user named it (`static`, `openai:…`, `none`), recorded for later searches. */
  embedderSpec: string;
}

import { EMBEDDER_SPEC_STATE } from './run-state.js';

export { EMBEDDER_SPEC_STATE };

/**
 * Records which embedder the index's vectors come from (id and size, and the spec that
 * recreates it for queries). A changed embedder makes every file's vectors stale: files
 * embedded with the old model are re-embedded by the next run, and search reads only the current one's.
 */
export async function recordEmbedder(store: Store, model: EmbeddingModel | undefined, spec: string): Promise<void> {
  const embedderId = model ? embedderIdOf(model) : 'none';
  if ((await store.getMeta()).embedderId !== embedderId) await store.setEmbedder(embedderId, model?.dimensions ?? 0);
  if ((await store.readState(EMBEDDER_SPEC_STATE)) !== spec) await store.writeState(EMBEDDER_SPEC_STATE, spec);
}

/** What a job runs against: opened by whoever runs it (the engine, or the worker on its own connection). */
export interface IndexJobResources {
  store: Store;
  model: EmbeddingModel | undefined;
  signal?: AbortSignal;
  onProgress?: IndexProgressListener;
  /** The warm index to save the graph with (the engine keeps its own for searches); default: a new one. */
  warmIndex?: (embedderId: string, dimensions: number) => Promise<WarmIndex>;
}

/**
 * The one indexing job: walk (or the given paths), chunk, embed, write; then save the vector
 * graph by one rule — only after a run that changed files, only when a graph file is given,
 * and only when the index is big enough to be searched by the graph rather than exactly.
 */
export async function runIndexJob(spec: IndexJobSpec, resources: IndexJobResources): Promise<IndexSummary> {
  const started = performance.now();
  // index-finished comes last, once the index files are saved too, with the whole job's time.
  const listener = resources.onProgress;
  const onProgress: IndexProgressListener | undefined = listener && ((event) => event.type !== 'index-finished' && listener(event));
  const { store, model } = resources;
  const embedderId = model ? embedderIdOf(model) : 'none';
  const { config } = spec;
  // A store of documents is never walked as a folder (every document would be removed).
  await claimStoreContent(store, 'folder');
  await recordEmbedder(store, model, spec.embedderSpec);
  if (spec.segmentFile) await ensureStoreInstance(store);
  const base = {
    root: spec.root,
    store,
    model,
    embedderId,
    chunker: CHUNKER_FINGERPRINT,
    chunking: config.chunking,
    maxFileBytes: config.sources.maxFileBytes,
    exclude: config.sources.exclude,
    respectGitignore: config.sources.respectGitignore,
    excludeAbsolutePaths: spec.excludeAbsolutePaths,
    indexSecrets: config.sources.indexSecrets,
    prepareInWorker: config.indexing.worker,
    ...(resources.signal ? { signal: resources.signal } : {}),
    ...(onProgress ? { onProgress } : {}),
  };
  const progressive = spec.progressive && model !== undefined;
  const graphLost = spec.paths ? async () => false : await checkSavedGraph(spec, store, embedderId, model?.dimensions ?? 0);
  const graph = {
    store,
    embedderId,
    dimensions: model?.dimensions ?? 0,
    // The watcher's batches never build a graph; a progressive run attaches vectors after its chunks.
    graphFile: spec.paths || !config.indexing.worker ? undefined : spec.graphFile,
    deferVectors: progressive,
    ...(onProgress ? { onProgress } : {}),
  };
  // The index the run's files are saved from: the engine's own, or one made for the save.
  const dimensions = model?.dimensions ?? 0;
  const engines = resources.warmIndex;
  const saving = lazyWarmIndex(store, warmIndexOptions(spec, embedderId, dimensions), engines ? () => engines(embedderId, dimensions) : undefined);
  try {
    const summary = await withBackgroundGraph(
      graph,
      (onProgress) => {
        const withEvents = { ...base, ...(onProgress ? { onProgress } : {}) };
        return spec.paths ? indexPaths({ ...withEvents, paths: spec.paths }) : indexFolder({ ...withEvents, progressive, keepUnreferenced: config.cache.maxUnreferencedVectors });
      },
      saveWhileGraphFinishes(saving),
    );
    // A whole-folder run also writes a segment file that is missing or unreadable (deleted by
    // hand, as `loci doctor` advises for a damaged one), and a vector graph that is missing or
    // was dropped as unreadable, though no file changed.
    const segmentLost = !spec.paths && spec.segmentFile !== undefined && readSegmentHeader(spec.segmentFile) === undefined;
    if (summary.files.indexed + summary.files.removed > 0 || segmentLost || (await graphLost())) {
      if (spec.mergePastThreshold || spec.graphFile || spec.segmentFile) onProgress?.({ type: 'save-started' });
      if (spec.mergePastThreshold) await mergeSegment(spec, resources, embedderId, dimensions);
      else if (spec.graphFile || spec.segmentFile) await saveWarmIndex(spec, resources, embedderId, dimensions, saving);
    }
    // The run's time is the whole job's: the graph's last rows and the saved files included.
    const total: IndexSummary = { ...summary, seconds: Math.round((performance.now() - started) / 10) / 100 };
    if (!spec.paths) await saveRunSummary(store, total);
    listener?.({ type: 'index-finished', summary: total });
    return total;
  } finally {
    saving.close();
  }
}

/**
 * A warm index made on first use: the engine's own when it has one (left open), else a transient
 * one for saving a run's files, closed by `close` (its segment file is not read again).
 */
export function lazyWarmIndex(store: Store, options: WarmIndexOptions, existing?: () => Promise<WarmIndex>): { get(): Promise<WarmIndex>; close(): void } {
  let made: Promise<WarmIndex> | undefined;
  let transient: WarmIndex | undefined;
  return {
    // Only saves: no graph search thread, so the graph it saves is not mapped for searches either.
    get: () => (made ??= existing ? existing() : Promise.resolve((transient = new WarmIndex(store, { ...options, searchThread: false })))),
    close: () => transient?.close(),
  };
}

/**
 * What a run does while its graph is finished on another thread: reads the run's rows into the
 * index it saves and writes the segment, then holds off that index's own graph (a search
 * meanwhile would build the same graph on this thread) until the worker's graph is saved.
 */
export function saveWhileGraphFinishes(saving: { get(): Promise<WarmIndex> }): (finished: Promise<unknown>) => Promise<void> {
  return async (finished) => {
    const warm = await saving.get();
    const release = warm.deferGraph();
    try {
      await warm.persist({ withoutGraph: true, minChanges: SEGMENT_REWRITE_MIN });
      await finished;
    } finally {
      release();
    }
  };
}

/**
 * Runs an indexing run with the vector graph built beside it when the run qualifies (see
 * BackgroundGraph): the graph file is saved before this returns, so the warm index that saves
 * the run's files maps it instead of building it. A failed or cancelled run saves no graph.
 */
export async function withBackgroundGraph<T>(
  options: Omit<BackgroundGraphOptions, 'chunksBefore'> & { onProgress?: IndexProgressListener },
  run: (onProgress: IndexProgressListener | undefined) => Promise<T>,
  whileFinishing?: (finished: Promise<unknown>) => Promise<unknown>,
): Promise<T> {
  const graph = options.graphFile ? BackgroundGraph.forRun({ ...options, chunksBefore: await options.store.countChunks() }) : undefined;
  if (!graph) return run(options.onProgress);
  const listener = options.onProgress;
  try {
    const result = await run((event) => {
      graph.observe(event);
      listener?.(event);
    });
    // While the worker adds the rows it has not reached (the run's last ones), the caller reads
    // the run's rows into the index it will save, instead of waiting and then reading them.
    // Its failure is not the run's: the save after the run does the same work again.
    const finished = graph.finish();
    const overlapped = graph.started && whileFinishing ? whileFinishing(finished).catch(() => undefined) : undefined;
    await Promise.all([finished, overlapped]);
    return result;
  } finally {
    await graph.stop();
  }
}

/**
 * A whole run's saved vector graph: before the run, one no search can use is deleted
 * (dropUnreadableGraph), so the run builds it again beside its work as it builds a missing one;
 * the check returned says after the run whether the store still wants a graph file it lacks, so
 * the run saves one though no file changed.
 */
export async function checkSavedGraph(
  files: { graphFile?: string | undefined; segmentFile?: string | undefined },
  store: Store,
  embedderId: string,
  dimensions: number,
): Promise<() => Promise<boolean>> {
  const { graphFile, segmentFile } = files;
  if (!graphFile || embedderId === 'none' || dimensions <= 0 || !loadUsearch()) return async () => false;
  dropUnreadableGraph(graphFile, await storeInstanceOf(store));
  return async () => !existsSync(graphFile) && (await vectorRows(store, segmentFile)) >= defaultHnswOptions.threshold;
}

/**
 * After a batch of paths: reads the segment file, catches up with the store and rewrites it
 * only past the change threshold (no graph is built or saved here).
 */
async function mergeSegment(spec: IndexJobSpec, resources: IndexJobResources, embedderId: string, dimensions: number): Promise<void> {
  if (!spec.segmentFile) return;
  const warm = new WarmIndex(resources.store, { weights: spec.config.search.fieldWeights, embedderId, dimensions, segmentFile: spec.segmentFile, buildGraph: false });
  try {
    await warm.persist({ pastThresholdOnly: true });
  } finally {
    warm.close();
  }
}

/**
 * After a run that changed files: the segment file (the whole index, so the next process
 * reads one file instead of every row) once SEGMENT_REWRITE_MIN rows changed since it was
 * written (fewer are read from the store by the next process, deletions from the store's
 * log), and, above the graph threshold, the vector graph.
 */
async function saveWarmIndex(spec: IndexJobSpec, resources: IndexJobResources, embedderId: string, dimensions: number, saving: { get(): Promise<WarmIndex> }): Promise<void> {
  const graph = embedderId !== 'none' && dimensions > 0 && spec.graphFile !== undefined && (await resources.store.countRows()).chunks >= defaultHnswOptions.threshold;
  // Below the threshold searches scan exactly and no graph is built: without a segment file there is nothing to save.
  if (!graph && !spec.segmentFile) return;
  await (await saving.get()).persist({ minChanges: SEGMENT_REWRITE_MIN });
}

function warmIndexOptions(spec: IndexJobSpec, embedderId: string, dimensions: number): WarmIndexOptions {
  return {
    weights: spec.config.search.fieldWeights,
    embedderId,
    dimensions,
    ...(spec.graphFile ? { graphFile: spec.graphFile } : {}),
    ...(spec.segmentFile ? { segmentFile: spec.segmentFile } : {}),
  };
}
