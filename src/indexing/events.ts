import type { SkipCounts, SkipReason } from '../sources/spec.js';

export interface IndexSummary {
  root: string;
  store: string;
  embedder: string;
  files: {
    /** Files whose chunks were (re)written: added + updated. */
    indexed: number;
    added: number;
    updated: number;
    unchanged: number;
    removed: number;
    /** Files in the index after the run. */
    total: number;
  };
  skipped: SkipCounts;
  chunks: { written: number; total: number };
  embeddings: { computed: number; cached: number };
  seconds: number;
  warnings: string[];
}

/** Progress events, in the order they happen. Names are noun-verb. */
export type IndexEvent =
  /** Another run (this process's or another's) is indexing the same store: this one waits for it, then starts. */
  | { type: 'run-waiting'; pid: number; host: string; since: number }
  /** The store was written by an older loci: its schema is migrated once, now, before the run (a big store takes a while). */
  | { type: 'store-upgrade'; store: string; from: number; to: number }
  | { type: 'worker-started'; threadId: number; niceness: number | null }
  | { type: 'walk-finished'; files: number; skipped: SkipCounts }
  | { type: 'plan-ready'; toIndex: number; toCheck: number; unchanged: number; toRemove: number }
  | { type: 'file-indexed'; path: string; chunks: number; done: number; total: number; fallback?: string }
  | { type: 'file-unchanged'; path: string; done: number; total: number }
  | { type: 'file-skipped'; path: string; reason: SkipReason; done: number; total: number; message?: string }
  | { type: 'file-removed'; path: string }
  | { type: 'phase-finished'; phase: 'lexical' | 'vectors'; summary: IndexSummary }
  /** The files are written; the index files a new process starts from (segment, vector graph) are being saved. */
  | { type: 'save-started' }
  | { type: 'index-finished'; summary: IndexSummary };

export type IndexProgressListener = (event: IndexEvent) => void;
