import type { LexicalWeights } from '../../store/spec.js';

/** What a warm index reports about its segment file (loaded, read whole in the background, saved, rejected and why). */
export interface SegmentEvent {
  type: 'segment-loaded' | 'segment-prefetched' | 'segment-saved' | 'segment-rejected';
  file: string;
  rows: number;
  ms: number;
  reason?: string;
  /** segment-prefetched: whether a worker thread read the postings and the matrix (else this thread did). */
  thread?: boolean;
}

export interface WarmIndexOptions {
  weights: LexicalWeights;
  /** Embedder whose vectors to hold; `none` for lexical only. */
  embedderId: string;
  dimensions: number;
  /** Where to keep the HNSW graph between processes (absent: rebuilt when needed). */
  graphFile?: string;
  /** Vector count from which an HNSW graph answers unfiltered queries. */
  graphThreshold?: number;
  /** false: use a saved graph but never build one (one-shot processes). */
  buildGraph?: boolean;
  /** Read the rest of a segment file in the background after loading it (long-lived processes), so no later query waits on a first read. */
  prefetch?: boolean;
  /** Walk a mapped vector graph on a second thread during hybrid searches, and map a graph once saved so it can (long-lived processes; graph-search-thread.ts). */
  searchThread?: boolean;
  /** Where to keep the whole index as a segment file between processes (absent: rebuilt from the store's rows). */
  segmentFile?: string;
  /** Told when a segment file is loaded, saved or rejected. */
  onSegment?: (event: SegmentEvent) => void;
  /** Rows per part when a fresh index's segment is written a part at a time (segment-parts.ts; tests use small parts). */
  segmentPartRows?: number;
}

/**
 * Row changes (added or removed) since the segment file was read or written from which an
 * indexing run rewrites it (fewer: the next process reads them from the store, a few
 * milliseconds), and the least from which closing does.
 */
export const SEGMENT_REWRITE_MIN = 1_000;
export const SEGMENT_REWRITE_SHARE = 0.05;
