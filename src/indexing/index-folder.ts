import type { Store } from '../store/spec.js';
import type { IndexProgressListener, IndexSummary } from './events.js';
import { attachPendingVectors } from './attach-vectors.js';
import { runIndex, type RunIndexOptions } from './run-index.js';

import { LAST_RUN_STATE } from './run-state.js';

export { LAST_RUN_STATE } from './run-state.js';

export interface IndexFolderOptions extends RunIndexOptions {
  /** Two phases: chunks and BM25 first, vectors second (only with a model). */
  progressive: boolean;
  /** Cached vectors no chunk uses that GC keeps for re-use (other branches). */
  keepUnreferenced: number;
}

/**
 * A whole-folder run as the engine does it, in-process or in the indexing worker:
 * one or two phases, then bounded GC of vectors no chunk uses any more (the job saves the
 * summary for `status` once its index files are written too). Every file is committed on its own, so a crash loses only files in flight.
 */
export async function indexFolder(options: IndexFolderOptions): Promise<IndexSummary> {
  const { progressive, keepUnreferenced, ...base } = options;
  const onProgress: IndexProgressListener | undefined = options.onProgress;
  let summary: IndexSummary;
  if (progressive && options.model) {
    // Phase 1: every changed file searchable by BM25 at once; phase 2: vectors attached to
    // the chunks phase 1 wrote (nothing read, chunked or rewritten again).
    const lexical = await runIndex({ ...base, deferVectors: true });
    onProgress?.({ type: 'phase-finished', phase: 'lexical', summary: lexical });
    const started = performance.now();
    const attached = await attachPendingVectors({
      store: options.store,
      model: options.model,
      embedderId: options.embedderId,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    const seconds = (performance.now() - started) / 1000;
    const leftPending = attached.leftPending > 0 ? [`${attached.leftPending} files are still waiting for vectors; the next \`loci index\` embeds them.`] : [];
    const vectors: IndexSummary = {
      ...lexical,
      embeddings: { computed: attached.computed, cached: attached.cached },
      seconds: Math.round(seconds * 100) / 100,
      warnings: [...attached.warnings, ...leftPending],
    };
    onProgress?.({ type: 'phase-finished', phase: 'vectors', summary: vectors });
    summary = {
      ...lexical,
      embeddings: { computed: attached.computed, cached: lexical.embeddings.cached + attached.cached },
      seconds: Math.round((lexical.seconds + seconds) * 100) / 100,
      warnings: [...new Set([...lexical.warnings, ...vectors.warnings])],
    };
  } else {
    summary = await runIndex(base);
  }
  // Old vectors (other branches, deleted files) are kept for re-use, up to a bound.
  if (summary.files.indexed + summary.files.removed > 0) await options.store.collectGarbage({ keepUnreferenced });
  return summary;
}

export async function saveRunSummary(store: Store, summary: IndexSummary): Promise<void> {
  await store.writeState(LAST_RUN_STATE, JSON.stringify({ ...summary, finishedAt: Date.now() }));
}
