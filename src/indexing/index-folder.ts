import type { Store } from '../store/spec.js';
import type { IndexProgressListener, IndexSummary } from './events.js';
import { runIndex, type RunIndexOptions } from './run-index.js';

/** The store state key holding the last run's summary (read by `status`). */
export const LAST_RUN_STATE = 'last-run';

export interface IndexFolderOptions extends RunIndexOptions {
  /** Two phases: chunks and BM25 first, vectors second (only with a model). */
  progressive: boolean;
  /** Cached vectors no chunk uses that GC keeps for re-use (other branches). */
  keepUnreferenced: number;
}

/**
 * A whole-folder run as the engine does it, in-process or in the indexing worker:
 * one or two phases, the summary saved for `status`, then bounded GC of vectors no chunk
 * uses any more. Every file is committed on its own, so a crash loses only files in flight.
 */
export async function indexFolder(options: IndexFolderOptions): Promise<IndexSummary> {
  const { progressive, keepUnreferenced, ...base } = options;
  const onProgress: IndexProgressListener | undefined = options.onProgress;
  let summary: IndexSummary;
  if (progressive && options.model) {
    // Phase 1: every changed file searchable by BM25 at once; phase 2: its vectors.
    const lexical = await runIndex({ ...base, deferVectors: true });
    onProgress?.({ type: 'phase-finished', phase: 'lexical', summary: lexical });
    const vectors = await runIndex(base);
    onProgress?.({ type: 'phase-finished', phase: 'vectors', summary: vectors });
    summary = {
      ...vectors,
      files: { ...lexical.files, total: vectors.files.total },
      embeddings: { computed: vectors.embeddings.computed, cached: lexical.embeddings.cached + vectors.embeddings.cached },
      seconds: Math.round((lexical.seconds + vectors.seconds) * 100) / 100,
    };
  } else {
    summary = await runIndex(base);
  }
  await saveRunSummary(options.store, summary);
  // Old vectors (other branches, deleted files) are kept for re-use, up to a bound.
  if (summary.files.indexed + summary.files.removed > 0) await options.store.collectGarbage({ keepUnreferenced });
  return summary;
}

export async function saveRunSummary(store: Store, summary: IndexSummary): Promise<void> {
  await store.writeState(LAST_RUN_STATE, JSON.stringify({ ...summary, finishedAt: Date.now() }));
}
