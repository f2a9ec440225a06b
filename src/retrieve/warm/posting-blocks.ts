/**
 * A posting list as BM25 scoring reads it, and its per-window summary for block-max pruning
 * (bm25-scoring.ts): the constants, the block layout, and how a summary is built and extended.
 */

// SQLite FTS5's bm25() constants (the test oracle is an FTS5 table: store/test-support/fts5-oracle.ts).
export const K1 = 1.2;
export const B = 0.75;

export interface Postings {
  /** Ascending slots (rows are appended in slot order, and compaction keeps it). */
  slots: Int32Array;
  /** Field-weighted term frequency per posting. */
  weighted: Float32Array;
  length: number;
  /** Live documents containing the term. */
  documentFrequency: number;
  /** The largest weighted frequency ever appended (an upper bound: removals never lower it). */
  maxWeighted: number;
  /** Per-window maxima for block-max pruning (long lists, built by the first query that needs them). */
  blocks?: PostingBlocks | undefined;
}

/** Slots per scoring window (and per block of a long posting list's maxima): 2^WINDOW_SHIFT. */
export const WINDOW_SHIFT = 10;

/**
 * The shortest list that gets a per-window summary over `windows` windows (12 bytes a window):
 * 8 postings a window, so the summary is at most a fifth of its postings' memory; a shorter
 * list is cheap to walk whole.
 */
export function summarizedFrom(windows: number): number {
  return Math.max(64, windows * 8);
}

/**
 * A long posting list's per-window summary, for block-max pruning: for window w (slots
 * [w·2^shift, (w+1)·2^shift)), its postings are [start[w], start[w+1]) and the largest
 * saturation f / (f + K1·(1 − B + B·length/averageLength)) among them is maxFactor[w], so
 * idf·(K1 + 1)·maxFactor[w] bounds every score of the term there (removed rows only loosen it).
 * Built on first use, extended as postings are appended, dropped when compaction renumbers slots.
 */
export interface PostingBlocks {
  shift: number;
  /** Postings summarised (the list only grows at its end between compactions). */
  covered: number;
  /** The average row length the factors were computed with. */
  averageLength: number;
  /** How much older windows were loosened by extensions under a larger average (rebuilt past LOOSEST). */
  loosened: number;
  start: Int32Array;
  maxFactor: Float64Array;
}

/** An extension that would loosen old windows' bounds past this factor rebuilds them instead. */
const LOOSEST = 1.05;

/** The saturation part of a term's BM25 score: termScore = idf·(K1 + 1)·factor (up to rounding). */
function saturation(frequency: number, length: number, averageLength: number): number {
  return frequency / (frequency + K1 * (1 - B + (B * length) / averageLength));
}

/**
 * How much a factor computed under average length `then` can grow under `now`: not at all when
 * the average shrank (longer relative lengths only lower it), at most by now/then when it grew.
 */
export function loosening(then: number, now: number): number {
  return now > then ? now / then : 1;
}

/** The postings' block summary for windows of 2^shift slots, built or extended to cover every posting. */
export function postingBlocks(postings: Postings, lengths: Float64Array, shift: number, averageLength: number): PostingBlocks {
  const { slots, weighted, length } = postings;
  const old = postings.blocks;
  if (old && old.shift === shift && old.covered === length) return old;
  const windows = length === 0 ? 0 : ((slots[length - 1] as number) >> shift) + 1;
  const start = new Int32Array(windows + 1);
  const maxFactor = new Float64Array(windows);
  // Appended postings only change the last summarised window and the ones after it; the
  // older windows keep their factors, scaled to stay bounds under the new average.
  let from = 0;
  let loosened = 1;
  if (old && old.shift === shift && old.covered > 0 && old.covered < length) {
    const scale = loosening(old.averageLength, averageLength);
    if (old.loosened * scale <= LOOSEST) {
      loosened = old.loosened * scale;
      from = (slots[old.covered - 1] as number) >> shift;
      start.set(old.start.subarray(0, from + 1));
      for (let window = 0; window < from; window++) maxFactor[window] = (old.maxFactor[window] as number) * scale;
    }
  }
  let window = from;
  let index = from === 0 ? 0 : (start[from] as number);
  start[from] = index;
  for (; index < length; index++) {
    const slot = slots[index] as number;
    const at = slot >> shift;
    while (window < at) start[++window] = index;
    const factor = saturation(weighted[index] as number, lengths[slot] as number, averageLength);
    if (factor > (maxFactor[at] as number)) maxFactor[at] = factor;
  }
  while (window < windows) start[++window] = length;
  const blocks: PostingBlocks = { shift, covered: length, averageLength, loosened, start, maxFactor };
  postings.blocks = blocks;
  return blocks;
}
