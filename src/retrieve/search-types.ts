import type { SearchMode } from '../config/schema.js';
import type { ChunkKind } from '../chunk/spec.js';
import type { FileRole } from '../sources/file-role.js';
import type { FusionMethod, FusionWeights, SignalScores } from './fusion.js';
import type { RankingExplanation } from './ranker/model.js';
import type { ScoredRow, SearchFilter, TermStatistics } from '../store/spec.js';

export type { SignalScores } from './fusion.js';

/** Where candidates come from: the store's own indexes, or a warm in-memory index. */
export interface Retriever {
  /** The path this retriever takes, reported in every response. */
  path(): RetrievalPath;
  /** A degraded path the caller should hear about (no vector graph module on a big index). */
  warnings?(): string[];
  lexical(terms: string[], limit: number, filter: SearchFilter | undefined): Promise<ScoredRow[]>;
  /** `beside`: the caller has other work meanwhile (a hybrid search scores BM25), so the search may run partly on another thread. */
  vector(vector: Float32Array, limit: number, filter: SearchFilter | undefined, options?: { beside?: boolean }): Promise<ScoredRow[]>;
  /**
   * Whether a `beside` vector search runs off the calling thread, so the calling thread is free
   * while it is out (the ranker then prepares the BM25 head meanwhile: rank-pool.ts).
   */
  vectorOffThread?: boolean;
  /** Handles what that thread has answered so far, now, without waiting for the event loop (a caller busy between rows calls it). */
  takeVectorReplies?(): void;
  /** Document frequencies for the ranker's IDF (absent: no learned ranking). */
  termStatistics?(terms: string[]): Promise<TermStatistics>;
  /** The index's languages and their chunk counts, for language names in queries (absent: none are hints). */
  languages?(): Promise<ReadonlyMap<string, number>>;
}

/** How one ranking is made (config `search.*`); role priors, names and the pool use their defaults when absent. */
export interface RankingDefaults {
  weights: FusionWeights;
  fusion: FusionMethod;
  ranker?: string;
  /** Role priors and name lookups (config `search.rolePenalties`, `testSubjectShare`, `definitionsFirst`). */
  rolePenalties?: Record<FileRole, number>;
  testSubjectShare?: number;
  /** How many leading results (files in files mode) the role priors order; the rest keep their retrieval order. */
  rolePriorDepth?: number;
  /** Candidates per signal in one ranking (rank-pool.ts). */
  candidatePool?: number;
  definitionsFirst?: boolean;
}

export interface SearchOptions {
  topK?: number;
  /**
   * Drop results whose `score` is below this. The scale depends on the mode: hybrid 0–1 (the
   * ranker's relevance estimate), lexical BM25 (0 and up, unbounded), vector cosine (−1 to 1).
   */
  threshold?: number;
  /**
   * Drop results whose cosine similarity to the query is below this (−1 to 1, the same
   * scale whatever the mode; the Go agent's similarity limit). A result with no vector
   * score (found by keywords alone) is dropped too. Needs vectors: on a lexical-only
   * index or in lexical mode it cannot apply, and a warning says so.
   */
  minSimilarity?: number;
  /** Globs or folders (relative to the root); any may match. */
  paths?: string[];
  /** Path prefixes, e.g. a document namespace (`conv-26/`). */
  pathPrefixes?: string[];
  /** Language ids or aliases (`ts` = typescript + tsx, `py`, `rs`, `cs`, …). */
  languages?: string[];
  /** Only files with these roles (implementation, test, fixture, example, docs, generated, config, lock). */
  roles?: string[];
  /** Leave out files with these roles. */
  excludeRoles?: string[];
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
export interface SearchResult {
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  kind: ChunkKind;
  /**
   * The chunk's symbol: the one a name query named, else the one whose words the query holds
   * most (a chunk of two functions, the second asked about), else its first.
   */
  symbol?: string;
  /** Every symbol the chunk defines, outermost first. */
  symbols?: string[];
  /** Symbol lookups and queries that are only a name: the line where `symbol` is defined in this chunk. */
  line?: number;
  /** What the chunk's file is for (implementation, test, docs, …). */
  role?: FileRole;
  headingPath: string[];
  text: string;
  /** The score results are ranked by (higher is better): the fused signal score, corrected by the learned ranker for the head of the list. */
  score: number;
  signals: SignalScores;
  /** With `explain`: how each signal moved this result (raw, normalised, weight, contribution). */
  explanation?: Partial<Record<'lexical' | 'vector' | 'mention', { raw: number; normalized: number; weight: number; contribution: number }>>;
  /** With `explain`: what moved the score after ranking (the file's role, its tests, a named definition). */
  adjustments?: { role?: { role: string; factor: number }; fromTests?: number; definition?: number; capped?: number };
  /** With `explain`: the learned ranker's features, weights and contributions (see docs/quality.md). */
  ranking?: RankingExplanation;
  chunkId: string;
  /** Present (true) when the file changed or vanished since it was indexed: the text may be out of date. */
  stale?: true;
  /** Present (true, with `stale`) when the file is gone from the folder since it was indexed. */
  deleted?: true;
}

/**
 * Which path a search took (no hidden switches): candidates from loci's in-memory index
 * (every SQLite search, and long-lived Postgres ones), ranked lexically by BM25 (SQLite
 * FTS5's formula), or from the store's own indexes, ranked by Postgres's ts_rank (a one-shot
 * Postgres search); vectors by graph or exact scan.
 */
export interface RetrievalPath {
  index: 'memory' | 'store';
  lexical: 'bm25' | 'ts_rank';
  vectors: 'graph' | 'exact' | 'none';
}

export interface SearchResponse {
  query: string;
  mode: SearchMode;
  results: SearchResult[];
  retrieval: RetrievalPath;
  /** Things the caller should know: a missing signal, an empty query after stop words. */
  warnings: string[];
  /** Signals that were asked for but could not run. */
  degraded: boolean;
  /** Which signals that were asked for could not run (`vector`: the embedder failed, the search was lexical). */
  degradedParts: Array<'vector' | 'lexical'>;
}
