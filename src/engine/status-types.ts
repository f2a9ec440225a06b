import type { IndexSummary } from '../indexing/events.js';

export interface IndexStatus {
  root: string;
  store: string;
  embedder: string;
  schemaVersion: number;
  files: number;
  chunks: number;
  vectors: number;
  /** All vectors kept, including those of files on other branches (bounded by cache.maxUnreferencedVectors). */
  cachedVectors: number;
  /** The index's files: its database, and the segment and vector graph files beside it. */
  bytesOnDisk: number;
  /** What runs degraded here and how to fix it (no vector graph module, grammars that failed in the last run). */
  warnings: string[];
  /**
   * The embedder as the user named it (`ollama:nomic-embed-text`), when it differs from what
   * the vectors say: e.g. a first index that failed before any vector was written.
   */
  requestedEmbedder?: string;
  /** The last `index` run that failed, if no run has succeeded since. */
  lastFailure?: { finishedAt: number; code: string; message: string };
  /** The index run under way now (this process's or another's), if any. */
  running?: { pid: number; host: string; since: number };
  /** An index run that never finished: its process ended (killed, crashed) with the run's lease still held. */
  interrupted?: { pid: number; host: string; since: number };
  /** The summary of the last completed `index` run, if any. */
  lastRun?: IndexSummary & { finishedAt: number };
  /** `documents` for a store of documents indexed with indexDocuments (never compared with a folder: no `changes`). */
  content?: 'documents';
  /** Differences between the folder now and the index (only when checked). */
  changes?: {
    modified: string[];
    added: string[];
    /** Indexed files gone from disk. */
    deleted: string[];
    /** Indexed files still on disk that indexing now skips (newly ignored, a secret, too big). */
    excluded: string[];
  };
}
