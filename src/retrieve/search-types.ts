import type { SearchMode } from '../config/schema.js';
import type { ChunkKind } from '../chunk/spec.js';
import type { RankingExplanation } from './rerank/ranker.js';

export interface SearchOptions {
  topK?: number;
  /** Drop results whose fused signal score (before the learned ranker) is below this. */
  threshold?: number;
  /** Globs or folders (relative to the root); any may match. */
  paths?: string[];
  /** Path prefixes, e.g. a document namespace (`conv-26/`). */
  pathPrefixes?: string[];
  languages?: string[];
  mode?: SearchMode;
  /** Rank files by their best chunk: one result per file. */
  files?: boolean;
  /** Attach each signal's contribution to every result. */
  explain?: boolean;
  /** false: keep the fused order for this search (skip the learned ranker). */
  ranker?: boolean;
  signal?: AbortSignal;
}

/** How much each signal contributed. Raw values: BM25 score, cosine similarity. */
export interface SignalScores {
  lexical?: number;
  vector?: number;
  /** 1 when the query names this chunk's symbol or file. */
  mention?: number;
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
  /** The score results are ranked by (higher is better): the fused signal score, corrected by the learned ranker for the head of the list. */
  score: number;
  signals: SignalScores;
  /** With `explain`: how each signal moved this result (raw, normalised, weight, contribution). */
  explanation?: Partial<Record<'lexical' | 'vector' | 'mention', { raw: number; normalized: number; weight: number; contribution: number }>>;
  /** With `explain`: the learned ranker's features, weights and contributions (see docs/quality.md). */
  ranking?: RankingExplanation;
  chunkId: string;
  /** Present (true) when the file changed or vanished since it was indexed: the text may be out of date. */
  stale?: true;
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
