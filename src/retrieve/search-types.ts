import type { SearchMode } from '../config/schema.js';
import type { ChunkKind } from '../chunk/spec.js';

export interface SearchOptions {
  topK?: number;
  /** Drop results whose `score` is below this. */
  threshold?: number;
  /** Globs or folders (relative to the root); any may match. */
  paths?: string[];
  /** Path prefixes, e.g. a document namespace (`conv-26/`). */
  pathPrefixes?: string[];
  languages?: string[];
  mode?: SearchMode;
  /** Rank files by their best chunk: one result per file. */
  files?: boolean;
  signal?: AbortSignal;
}

/** How much each signal contributed. Raw values: BM25 score, cosine similarity. */
export interface SignalScores {
  lexical?: number;
  vector?: number;
}

export interface SearchResult {
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  kind: ChunkKind;
  symbol?: string;
  headingPath: string[];
  text: string;
  /** The fused score results are ranked by (higher is better). */
  score: number;
  signals: SignalScores;
  chunkId: string;
}

export interface SearchResponse {
  query: string;
  mode: SearchMode;
  results: SearchResult[];
  /** Things the caller should know: a missing signal, an empty query after stop words. */
  warnings: string[];
  /** Signals that were asked for but could not run. */
  degraded: Array<'vector' | 'lexical'>;
}
