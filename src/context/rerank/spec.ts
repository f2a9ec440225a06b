import type { ContextItem } from '../pack.js';

export interface RerankOptions {
  /** How many to keep (best first). */
  topK: number;
  signal?: AbortSignal;
}

/** Reorders retrieved items for a query; returned items carry the reranker's score. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, items: readonly ContextItem[], options: RerankOptions): Promise<ContextItem[]>;
}
