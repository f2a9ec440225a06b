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
  bytesOnDisk: number;
  /** The summary of the last completed `index` run, if any. */
  lastRun?: IndexSummary & { finishedAt: number };
  /** Differences between the folder now and the index (only when checked). */
  changes?: {
    modified: string[];
    added: string[];
    deleted: string[];
  };
}
