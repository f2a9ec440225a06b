/**
 * A reranker, in the shape of the other model families (embed/spec.ts, llm/spec.ts): a tiny
 * versioned spec whose one method only translates one model or API. Validation, slicing to
 * top-k and falling back when it fails live once in core (`rerankItems`, rerank.ts).
 */
export interface Reranker {
  readonly specificationVersion: 'v1';
  /** `mmr`, `llm-yes-no`, `cohere`, `voyage`, `cross-encoder`, or your own. */
  readonly provider: string;
  readonly modelId: string;
  doRerank(options: DoRerankOptions): Promise<DoRerankResult>;
}

/** One retrieved item as a reranker sees it: its file, its text and the retrieval score. */
export interface RerankDocument {
  path: string;
  text: string;
  score: number;
}

export interface DoRerankOptions {
  query: string;
  /** In retrieval order (best first); never empty. */
  documents: readonly RerankDocument[];
  /** How many to keep; returning more is allowed (core keeps the best `topK`). */
  topK: number;
  abortSignal?: AbortSignal;
}

export interface DoRerankResult {
  /** Indexes into `documents` with the reranker's score (higher is better); each index at most once. */
  ranking: Array<{ index: number; score: number }>;
  warnings?: string[];
}

/** A stable name for logs and warnings: `provider:modelId`. */
export function rerankerId(reranker: Pick<Reranker, 'provider' | 'modelId'>): string {
  return `${reranker.provider}:${reranker.modelId}`;
}
