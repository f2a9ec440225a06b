import type { ChunkKind } from '../chunk/spec.js';
import type { ChunkTermStats, EncodedTerms } from '../lexical/codec.js';
import type { LexicalFields } from '../lexical/fields.js';

/** What the store knows about one indexed file (the catalog row). */
export interface CatalogEntry {
  path: string;
  size: number;
  mtimeMs: number;
  /** sha256 of the file's bytes, hex. */
  contentHash: string;
  language: string;
  /** Chunker fingerprint the chunks were cut with. */
  chunker: string;
  /** Embedder id whose vectors cover this file's chunks, or `none`. */
  embedder: string;
  chunkCount: number;
  indexedAt: number;
  /** Free-form JSON text kept with the entry (memory records keep their fields here). */
  attributes?: string;
}

/** A chunk ready to be written: its text plus the lexical fields and optional vector. */
export interface ChunkWrite {
  /** Content-addressed id: hash of (path, start line, text hash). */
  chunkId: string;
  /** sha256 of the chunk text: the embedding cache key. */
  contentHash: string;
  startLine: number;
  endLine: number;
  language: string;
  kind: ChunkKind;
  symbol?: string;
  symbols?: string[];
  headingPath?: string[];
  text: string;
  /** Space-joined code-aware tokens for each lexical field. */
  lexical: LexicalFields;
  /** The same tokens counted per field, for the in-memory index. */
  termStats: ChunkTermStats;
  vector?: Float32Array;
}

/** Each field's tokens joined by spaces: the form the lexical index stores (see src/lexical). */
export type { LexicalFields } from '../lexical/fields.js';

/** Everything that changes when one file is (re)indexed: applied atomically. */
export interface FileWrite {
  entry: CatalogEntry;
  chunks: ChunkWrite[];
}

/** A stored chunk as search returns it. */
export interface ChunkRecord {
  /** Store-internal row id; stable until the chunk's file is rewritten. */
  rowId: number;
  chunkId: string;
  contentHash: string;
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  kind: ChunkKind;
  symbol?: string;
  symbols: string[];
  headingPath: string[];
  text: string;
}

/** Restrictions applied before ranking. Absent fields do not restrict. */
export interface SearchFilter {
  /**
   * Glob patterns (picomatch) matched against the relative path: a path passes when any
   * plain glob matches (or there is none) and no `!`-glob does.
   */
  pathGlobs?: string[];
  /** Path prefixes (e.g. `src/` or a namespace); any may match. */
  pathPrefixes?: string[];
  languages?: string[];
  /** Exactly these paths (a role filter resolved against the catalog); AND-ed with the rest. */
  pathSet?: string[];
}

/** Per-field weights for the lexical score. */
export interface LexicalWeights {
  path: number;
  symbols: number;
  heading: number;
  body: number;
}

/** Document frequencies for IDF: how many live chunks hold each term, out of how many. */
export interface TermStatistics {
  chunks: number;
  frequencies: ReadonlyMap<string, number>;
}

export interface LexicalQuery {
  terms: string[];
  weights: LexicalWeights;
  limit: number;
  filter?: SearchFilter;
}

/** Symbols and paths a query names explicitly (see retrieve/mentions.ts). */
export interface MentionQuery {
  symbols: string[];
  paths: string[];
  limit: number;
  filter?: SearchFilter;
}

export interface ScoredRow {
  rowId: number;
  score: number;
  /** The chunk's file path, so callers can group by file without fetching chunks. */
  path: string;
}

export interface VectorQuery {
  embedderId: string;
  vector: Float32Array;
  limit: number;
  filter?: SearchFilter;
}

/** One chunk's data for building an in-memory index. */
export interface IndexRow {
  rowId: number;
  path: string;
  language: string;
  terms: EncodedTerms;
  /** Present when the scan asked for an embedder and the chunk has its vector. */
  vector?: Float32Array;
  /** Present when the chunk has no vector (yet): its vector, once attached, is found by this hash. */
  contentHash?: string;
}

export interface ScanOptions {
  /** Only rows with a larger row id (row ids only grow). */
  afterRowId?: number;
  /** Attach vectors from this embedder. */
  embedderId?: string;
  /** At most this many rows, lowest ids first (a caller pages with afterRowId). */
  limit?: number;
}

export interface IndexMeta {
  schemaVersion: number;
  /** The embedder this index's vectors come from, or `none`. */
  embedderId: string;
  dimensions: number;
  createdAt: number;
  createdBy: string;
}

export interface StoreCounts {
  files: number;
  chunks: number;
  vectors: number;
  cachedEmbeddings: number;
  bytesOnDisk: number;
}

/**
 * The persistence contract. Every adapter (SQLite, Postgres) passes the same contract
 * suite (`store-contract.ts`). Writes for one file are atomic: after a crash a file is
 * either fully old or fully new.
 */
/** How a store ranks lexical matches by itself (Postgres's ts_rank); loci's own index ranks with BM25. */
export type LexicalRanking = 'bm25' | 'ts_rank';

/**
 * What a store that can rank lexical matches by itself adds (Postgres: its tsvector
 * column and ts_rank). A store without it (SQLite) keeps only the per-chunk term
 * statistics (`scanIndexRows`), and every search goes through loci's own index built
 * from them (retrieve/warm), saved as a segment file beside the store.
 */
export interface SelfRankingStore {
  /** The ranking of `searchLexical` (warm engines always rank with BM25, in memory). */
  readonly lexicalRanking: LexicalRanking;
  searchLexical(query: LexicalQuery): Promise<ScoredRow[]>;
  /** How many live chunks hold each term (in any lexical field), and how many chunks there are. */
  termStatistics(terms: string[]): Promise<TermStatistics>;
}

/** Whether a store answers lexical queries by itself (see SelfRankingStore). */
export function ranksLexically(store: Store): store is Store & SelfRankingStore {
  return typeof (store as Partial<SelfRankingStore>).searchLexical === 'function' && typeof (store as Partial<SelfRankingStore>).termStatistics === 'function';
}

/** A store's schema is being upgraded at open, once, before any other work (a big store takes a while). */
export interface StoreUpgrade {
  /** The store, as it may be printed (a file, or a postgres target without its password). */
  store: string;
  from: number;
  to: number;
}

/** Told just before a store's older schema is migrated (once per store, inside the open); one that throws never stops the open. */
export type StoreUpgradeListener = (upgrade: StoreUpgrade) => void;

export interface Store extends Partial<SelfRankingStore> {
  readonly kind: string;
  readonly location: string;

  getMeta(): Promise<IndexMeta>;
  /** Records the embedder of the index; changing it never mixes vectors (see search). */
  setEmbedder(embedderId: string, dimensions: number): Promise<void>;

  /** Catalog entries, sorted by path; only those under `pathPrefix` when given. */
  listCatalog(options?: { pathPrefix?: string }): Promise<CatalogEntry[]>;
  /** The symbols each file defines (chunk symbols, in line order), for repo maps; files without symbols are absent. */
  listOutline(): Promise<Array<{ path: string; symbols: Array<{ name: string; line: number }> }>>;
  /** How many catalog entries lie under `pathPrefix` (all when empty). */
  countCatalog(pathPrefix?: string): Promise<number>;
  getCatalogEntry(path: string): Promise<CatalogEntry | undefined>;
  getCatalogEntries(paths: string[]): Promise<Map<string, CatalogEntry>>;
  /** Replaces a file's chunks, lexical rows and vectors and its catalog row, atomically. */
  writeFile(write: FileWrite): Promise<void>;
  /** Several files in one transaction: all written, or none. */
  writeFiles(writes: FileWrite[]): Promise<void>;
  /** Removes several files (chunks, lexical rows, catalog rows) in one transaction. */
  deleteFiles(paths: string[]): Promise<void>;
  /** Updates size/mtime after a content-hash match (nothing else changed), and indexedAt to now: the file takes the fast path again. */
  touchFile(path: string, size: number, mtimeMs: number): Promise<void>;
  /** Removes a file's chunks, lexical rows and catalog row, atomically. */
  deleteFile(path: string): Promise<void>;

  /** Cached vectors for (embedder, content hash); missing hashes are absent from the map. */
  getCachedVectors(embedderId: string, contentHashes: string[]): Promise<Map<string, Float32Array>>;
  /** Adds vectors to the embedding cache without touching chunks. */
  putCachedVectors(embedderId: string, vectors: Map<string, Float32Array>): Promise<void>;

  /** Cosine similarity search over chunks whose vectors come from `embedderId`. */
  searchVectors(query: VectorQuery): Promise<ScoredRow[]>;
  getChunks(rowIds: number[]): Promise<ChunkRecord[]>;
  /** Every chunk of these files (by path, then line). */
  listChunks(paths: string[]): Promise<ChunkRecord[]>;
  /**
   * Records that these files' vectors now come from `embedderId` (their vectors are in the
   * embedding cache, joined by content hash): a catalog update, no chunk or lexical row
   * written. Moves changeToken, so warm indexes pick the vectors up.
   */
  setFileEmbedder(paths: string[], embedderId: string): Promise<void>;
  /**
   * Chunks that define a named symbol (whole qualified name or its last segment,
   * case-insensitive) or lie in a named file (exact path or path suffix); score 1.
   */
  findMentions(query: MentionQuery): Promise<ScoredRow[]>;
  /** The languages of the indexed files, sorted, each with how many chunks its files hold. */
  languages(): Promise<Map<string, number>>;

  /** Changes whenever anything (this or another process) committed a write. */
  changeToken(): Promise<string>;
  /** Rows for building in-memory indexes, in row id order. */
  scanIndexRows(options: ScanOptions): Promise<IndexRow[]>;
  /** How many chunk rows are live (tells a scanner whether any were deleted). */
  countChunks(): Promise<number>;
  /**
   * A count of chunk rows ever deleted, moved in the same commit as the delete; a scanner that
   * saw this value has seen every deletion (cheaper than countChunks at scale). Absent when
   * a store cannot tell.
   */
  chunkDeletions?(): Promise<number | undefined>;
  /**
   * The row ids of the deletions counted after `after` up to `upTo` (chunkDeletions values),
   * oldest first; undefined when the store no longer knows (or never logged) all of them.
   */
  deletedRowIds?(after: number, upTo: number): Promise<Int32Array | undefined>;
  /** Every live chunk row id (to find deletions since a scan). */
  liveRowIds(): Promise<Int32Array>;
  /** Lexicon terms with id > afterId, as [id, term] pairs. */
  readLexicon(afterId: number): Promise<Array<[number, string]>>;
  /**
   * The whole lexicon in UTF-8 byte order of its terms (a segment's order), packed: the terms'
   * bytes one after another, where each ends, and their ids. Optional: a store that can list its
   * terms in that order (SQLite's index on them) spares the caller a list of pairs and a sort.
   */
  readLexiconSorted?(): Promise<{ bytes: Uint8Array; offsets: Uint32Array; ids: Uint32Array }>;

  /** Small named values kept with the index (e.g. the last run's summary), as JSON text. */
  readState(key: string): Promise<string | undefined>;
  writeState(key: string, value: string): Promise<void>;
  /**
   * Reads a named value and replaces it in one transaction no other writer of the store
   * interleaves with (a compare-and-set: how concurrent processes take a lease). `update`
   * gets the current value and returns the new one, or undefined to leave it; returns the
   * value stored after.
   */
  updateState(key: string, update: (current: string | undefined) => string | undefined): Promise<string | undefined>;
  /** Every named value, sorted by key (for copying a store). */
  listState(): Promise<Array<[string, string]>>;

  counts(): Promise<StoreCounts>;
  /** Only the file and chunk counts (what a run's summary reports): no join over every chunk's vector. */
  countRows(): Promise<{ files: number; chunks: number }>;
  /**
   * Drops cached vectors no live chunk of the current embedder uses, keeping the newest
   * `keepUnreferenced` of them (so switching back to a branch re-uses them); with `compact`,
   * also returns the freed space to the file system; with `truncateLog`, also empties a
   * write-ahead log (SQLite), so what was freed is given back now and a size measured next is
   * the store's (`loci gc`; an indexing run's own collection leaves the log be).
   */
  collectGarbage(options: { keepUnreferenced: number; compact?: boolean; truncateLog?: boolean }): Promise<{ removedVectors: number; keptUnreferenced: number }>;
  /**
   * A run that writes many groups is starting (`true`) or has ended (`false`): the store may
   * put off housekeeping meanwhile (SQLite checkpoints its write-ahead log every 256 MB instead
   * of every 4 MB: each checkpoint copies every page the commits since the last one touched,
   * and a group's random hashes touch most index pages). Stores without such work omit it.
   */
  bulkWrites?(active: boolean): Promise<void>;
  /** A fast structural check (SQLite quick_check); throws STORE_CORRUPT with what to do. Stores without one omit it. */
  quickCheck?(): Promise<void>;
  close(): Promise<void>;
}
