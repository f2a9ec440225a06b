import type { Retriever } from '../search.js';
import { defaultHnswOptions } from './exact-or-graph-vector-index.js';
import { NO_SAVED_GRAPH_WARNING, NO_VECTOR_GRAPH_WARNING, vectorGraphAvailable } from './usearch-graph.js';
import type { WarmIndex } from './warm-index.js';

/**
 * Candidates from a warm in-memory index, ranked by BM25 (SQLite FTS5's formula). With
 * `forRanker`, it also answers the learned ranker's term statistics and language hints.
 */
export function warmRetriever(warm: WarmIndex, embedderId: string, options: { forRanker: boolean }): Retriever {
  return {
    path: () => ({ index: 'memory', lexical: 'bm25', vectors: embedderId === 'none' ? 'none' : warm.usesVectorGraph ? 'graph' : 'exact' }),
    warnings: () => {
      if (embedderId === 'none' || warm.size < defaultHnswOptions.threshold) return [];
      if (!vectorGraphAvailable()) return [NO_VECTOR_GRAPH_WARNING];
      return warm.lacksSavedGraph ? [NO_SAVED_GRAPH_WARNING] : [];
    },
    // guard(): a part of the segment file read on demand that is damaged rebuilds the index from the store.
    lexical: (terms, limit, filter) => warm.guard(() => warm.searchLexical(terms, limit, filter)),
    vectorOffThread: true,
    takeVectorReplies: () => warm.takeVectorReplies(),
    vector: (vector, limit, filter, options) => warm.guard(() => (options?.beside ? warm.searchVectorsBeside(vector, limit, filter) : warm.searchVectors(vector, limit, filter))),
    ...(options.forRanker ? { termStatistics: (terms: string[]) => warm.guard(() => warm.termStatistics(terms)), languages: async () => warm.languages() } : {}),
  };
}
