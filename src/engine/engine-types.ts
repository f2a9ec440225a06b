import type { LociConfig, LociConfigInput } from '../config/schema.js';
import type { EmbeddingModel } from '../embed/spec.js';
import type { IndexProgressListener, IndexSummary } from '../indexing/events.js';
import type { DocumentSource } from '../indexing/index-documents.js';
import type { FindSymbolOptions } from '../retrieve/find-symbol.js';
import type { SearchOptions, SearchResponse } from '../retrieve/search-types.js';
import type { Memory } from '../memory/memory.js';
import type { SafeReader } from '../sources/safe-read.js';
import type { IndexStatus } from './status-types.js';
import type { StoreInput } from '../store/location.js';
import type { LociWatcher, WatchOptions } from './watch.js';

export interface CreateLociOptions {
  /** The folder to index. Relative paths are resolved against the process's cwd. */
  root: string;
  /**
   * Where the index lives; default `<root>/.loci`; overrides config.store. A folder, a .db
   * file, a postgres:// URL, or stores you opened (`Store`, or `{ index, memory }`): those are
   * used as they are (no indexing worker: it needs a location to open its own connection)
   * and closed by `close()`.
   */
  store?: StoreInput;
  /** Config values (already merged from file/env/flags by the caller, if any). */
  config?: LociConfigInput;
  /** An embedder spec or a model instance; overrides config.embedder for indexing. */
  embedder?: string | EmbeddingModel;
  /** Environment for API keys of remote embedders. Default: none (pass process.env to allow). */
  env?: Record<string, string | undefined>;
  /**
   * Hold the index in memory for fast repeated searches (default). A one-shot process
   * (the CLI's search) sets false and queries the store's own indexes instead; both
   * rank identically.
   */
  inMemory?: boolean;
}

export interface GcSummary {
  removedVectors: number;
  keptUnreferenced: number;
  /** Names of the files removed from the store folder: graph and segment files of other embedders or layouts, and temporary files of saves whose process is gone. */
  removedGraphFiles: string[];
  expiredMemories: number;
  /** Memory records stored while the embedder was down that got their vectors now. */
  embeddedMemories: number;
  bytesBefore: number;
  bytesAfter: number;
  /** What gc could not do (records still waiting for an embedder that fails). */
  warnings: string[];
}

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: IndexProgressListener;
  /** Override config indexing.progressive for this run. */
  progressive?: 'auto' | 'always' | 'never';
}

export interface Loci {
  readonly root: string;
  readonly config: LociConfig;
  readonly storeLocation: string;
  /** Brings the index of `root` up to date. */
  index(options?: RunOptions): Promise<IndexSummary>;
  /** Brings only these paths (relative to the root; files or folders) up to date. */
  indexPaths(paths: readonly string[], options?: RunOptions): Promise<IndexSummary>;
  /**
   * Watches the root and re-indexes changed files as they are saved (debounced), after
   * bringing the index up to date once. Events: each batch's summary, and errors.
   */
  watch(options?: WatchOptions): Promise<LociWatcher>;
  /**
   * Indexes documents that are not files (ids act as paths): a list, or an iterable or async
   * iterable read a window at a time (a stream never held in memory whole).
   */
  indexDocuments(documents: DocumentSource, options?: RunOptions & { prune?: boolean }): Promise<IndexSummary>;
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  /**
   * Gets ready to answer: opens the store and the search model and builds the warm in-memory
   * index, so the first search does not pay for it (a server calls it at start). A root with
   * no index yet is ready as it is.
   */
  ready(options?: { signal?: AbortSignal }): Promise<void>;
  /** Where a symbol is defined: only definitions, implementation first (`loci search --symbol`). */
  findSymbol(name: string, options?: FindSymbolOptions): Promise<SearchResponse>;
  status(options?: { checkChanges?: boolean; signal?: AbortSignal }): Promise<IndexStatus>;
  /**
   * Garbage collection: cached vectors beyond `cache.maxUnreferencedVectors` that no indexed
   * chunk uses, vector graphs of other embedders, expired memories; `compact` also shrinks the file.
   */
  gc(options?: { compact?: boolean }): Promise<GcSummary>;
  /** Indexed files (path, size, language), sorted by path. */
  files(): Promise<Array<{ path: string; size: number; language: string }>>;
  /** Symbols each indexed file defines, in line order (for repo maps). */
  outline(): Promise<Array<{ path: string; symbols: Array<{ name: string; line: number }> }>>;
  /** The embedder behind this index's vectors (undefined for lexical-only indexes). */
  embedder(): Promise<EmbeddingModel | undefined>;
  /** Agent memory (turns, interactions, knowledge, notes), kept beside the index in its own store. */
  memory(): Promise<Memory>;
  /**
   * Reads files of the root for callers (includes, whole files): inside the root after
   * symlinks, only what the ignore and secret rules let indexing read, regular files, capped
   * per file and per reader (`budgetBytes`, one reader per request).
   */
  sourceReader(options?: { budgetBytes?: number }): SafeReader;
  close(): Promise<void>;
}
