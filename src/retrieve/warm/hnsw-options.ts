/** The vector graph's settings (usearch HNSW), for the warm index's graph and an indexing run's graph worker alike. */
export interface HnswOptions {
  /** Build the graph once this many vectors are held; below it exact search is as fast. */
  threshold: number;
  connectivity: number;
  expansionAdd: number;
  expansionSearch: number;
  /** Where the graph is saved between processes (a cache: rebuilt if missing or stale). */
  file?: string;
  /** false: use a saved graph, never build one (a one-shot process: an exact scan is cheaper than a build). */
  build?: boolean;
  /** Row changes a mapped graph takes beside it before it is read into memory (default VIEW_DELTA, exact-or-graph-vector-index.ts). */
  viewDelta?: number;
  /** Rows up to which a mapped graph past viewDelta is dropped while changes go on (default EXACT_WHILE_SETTLING, graph-settling.ts); 0: read into memory at once. */
  exactWhileSettling?: number;
  /** How long changes must pause before a dropped graph is read again (default SETTLE_QUIET_MS). */
  settleQuietMs?: number;
  /** Threads a graph is built on here (default 0: every core; on usearch#735, docs/benchmarks.md). */
  addThreads?: number;
  /** The store's instance id once its holder has read it: a graph file saved for another store is never read, and saves carry it (graph-file-sum.ts). */
  storeInstance?: () => string | undefined;
}

/**
 * The graph holds 16-bit copies of the vectors (graph-quantization.ts: bf16 where the CPU has bf16
 * dot products, else f16, as every graph was before 2026-11-29) and only proposes candidates: each that can place is rescored exactly against the f32 matrix
 * (graph-candidates.ts). At 100k chunks, built by an indexing run's graph
 * worker, M 24 / ef_add 128 / f16 reaches recall@10 0.965 through loci's vector search
 * (M 16 / ef_add 128 / f32: 0.960) and the run takes 54 s instead of 64 s; ef_add 96 in f16
 * fell to 0.930 there (docs/benchmarks.md).
 */
export const defaultHnswOptions: HnswOptions = { threshold: 20_000, connectivity: 24, expansionAdd: 128, expansionSearch: 160 };

/** Below this estimated pass rate a filtered query scans exactly instead of using the graph. */
export const SELECTIVE_FILTER = 0.1;

/**
 * Large graphs are searched wider: usearch explores max(k, expansion_search) nodes, and at
 * 1M vectors (M 24, f16) recall@10 goes 0.869 / 0.929 / 0.949 / 0.949 at k = 160 / 400 / 500
 * / 600, p50 0.66 / 1.50 / 1.86 / 2.03 ms (bench/hnsw-breadth.mjs, 2026-11-25). Breadth
 * grows with the graph (one per 2,000 vectors), capped where recall stops rising.
 */
export const VECTORS_PER_BREADTH = 2_000;
export const MAX_BREADTH = 500;
/**
 * Changes a mapped graph takes beside it before it is read into memory: rows added since it
 * was saved are scored exactly with its candidates, rows gone are skipped (a small delta
 * costs no load of the whole graph, nor a rewrite of its file). Gone rows are allowed an
 * eighth of it: each search asks the graph for as many more candidates (at 100k, k 160 takes
 * 1.6 ms, k 672 ~4.6 ms, k 4,256 ~20 ms).
 */
export const VIEW_DELTA = 4_096;
/**
 * Rows a graph read from its file may lack and still be used: they are scored exactly (at 128
 * dimensions ~8M multiply-adds a search at this bound) until drain() puts them in it between
 * searches. More than this are added at once, as when a graph is built.
 */
export const DRAINED_AT_MOST = 65_536;
/**
 * How far the graph's cosine of a candidate can be from its exact one. The graph holds bf16
 * copies (graph-quantization.ts; rounded to nearest, each component within 2^-8 of itself
 * relative to its size; usearch sums in f32): each vector turns by at most ~2^-8 radians, so the
 * cosine moves by at most ~2^-7 (0.0078; a pair built for it reached 7.7e-3), and four times that
 * is allowed (twice the bound of a usearch build that truncates instead of rounding). f16
 * (2^-11) is well within it. Over the 500 candidates of each of 100 queries
 * on the 1M bench store: f16 at most 9.8e-5 off, bf16 8.5e-4; 222 of the 500 are scored, 111
 * with f16's slack of 0.004 (docs/benchmarks.md).
 */
export const GRAPH_COSINE_SLACK = 0.032;

/**
 * How many candidates a graph search asks for: `limit`, oversampled by a filter's pass `rate`,
 * at least the breadth the graph's `size` calls for, plus the `gone` rows a mapped graph still
 * holds (they may be among its candidates). undefined: a selective filter, answered exactly.
 */
export function graphCandidatesWanted(limit: number, size: number, rate: number | undefined, gone: number): number | undefined {
  let want = limit;
  if (rate !== undefined) {
    // A selective filter (a namespace, a folder) is answered exactly: scanning the few rows that
    // pass is cheaper than oversampling the graph. A broad one oversamples by its pass rate.
    if (rate < SELECTIVE_FILTER) return undefined;
    want = Math.min(size, Math.ceil((limit / rate) * 2));
  }
  return Math.max(want, Math.min(MAX_BREADTH, Math.ceil(size / VECTORS_PER_BREADTH))) + gone;
}
