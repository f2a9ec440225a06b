import { CHUNKER_FINGERPRINT } from '../chunk/index.js';
import type { LociConfig } from '../config/schema.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import type { IndexSummary } from '../indexing/events.js';
import { indexDocuments, type DocumentSource } from '../indexing/index-documents.js';
import { claimStoreContent } from '../indexing/store-content.js';
import { checkSavedGraph, lazyWarmIndex, saveWhileGraphFinishes, withBackgroundGraph } from '../indexing/index-job.js';
import { SEGMENT_REWRITE_MIN, type WarmIndex } from '../retrieve/warm/warm-index.js';
import { ensureStoreInstance } from '../retrieve/warm/warm-segment.js';
import type { Store } from '../store/spec.js';
import type { RunOptions } from './engine-types.js';
import type { indexCacheOptions } from './index-files.js';

export interface DocumentsRun {
  documents: DocumentSource;
  store: Store;
  model: EmbeddingModel | undefined;
  config: LociConfig;
  /** Where the segment file and the vector graph are saved for the next process. */
  cacheFiles: ReturnType<typeof indexCacheOptions>;
  /** The engine's warm index for this embedder, brought up to date and saved with the files. */
  warm: WarmIndex | undefined;
  runOptions: RunOptions & { prune?: boolean };
}

/**
 * Indexes documents a caller hands over (no folder), with the vector graph built beside the
 * run on its own thread, then saves the segment file (and the graph) as a folder run does.
 */
export async function runDocuments(run: DocumentsRun): Promise<IndexSummary> {
  const { store, model, config, cacheFiles, runOptions } = run;
  // A folder's store never takes documents (one whose id is a file's path would replace its chunks).
  await claimStoreContent(store, 'documents');
  // The segment file written after the run is checked against this id.
  await ensureStoreInstance(store);
  const embedderId = model ? embedderIdOf(model) : 'none';
  const threads = config.indexing.worker;
  const graphLost = await checkSavedGraph(cacheFiles, store, embedderId, model?.dimensions ?? 0);
  const graph = {
    store,
    embedderId,
    dimensions: model?.dimensions ?? 0,
    graphFile: threads ? cacheFiles.graphFile : undefined,
    ...(runOptions.onProgress ? { onProgress: runOptions.onProgress } : {}),
  };
  // The index the files are saved from: the engine's own, or one made for the save.
  const options = { weights: config.search.fieldWeights, embedderId, dimensions: model?.dimensions ?? 0, ...cacheFiles };
  const engines = run.warm;
  const saving = lazyWarmIndex(store, options, engines ? async () => engines : undefined);
  try {
    const summary = await withBackgroundGraph(
      graph,
      (onProgress) =>
        indexDocuments({
          documents: run.documents,
          store,
          model,
          embedderId,
          chunker: CHUNKER_FINGERPRINT,
          chunking: config.chunking,
          prepareInWorker: threads,
          ...runOptions,
          ...(onProgress ? { onProgress } : {}),
        }),
      saveWhileGraphFinishes(saving),
    );
    // As after a folder run: the segment file (and, when large enough, the vector graph) for the next process.
    if ((summary.files.indexed + summary.files.removed > 0 || (await graphLost())) && !runOptions.signal?.aborted) {
      await (await saving.get()).persist({ minChanges: SEGMENT_REWRITE_MIN });
    }
    return summary;
  } finally {
    saving.close();
  }
}
