import type { RowFilter } from '../../store/filter-match.js';
import { TopK } from '../../store/top-k.js';

// SQLite FTS5's bm25() constants (the test oracle is an FTS5 table: store/test-support/fts5-oracle.ts).
export const K1 = 1.2;
export const B = 0.75;
/** Relative slack on pruning decisions, far above float rounding, far below real gaps. */
const SLACK = 1e-9;

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
}

/** What scoring reads of the index: per-slot arrays, indexed by slot. */
export interface ScoringView {
  /** The row id in each slot: ties rank the smaller row id first, on every path. */
  rowIds: Float64Array;
  alive: Uint8Array;
  lengths: Float64Array;
  paths: (slot: number) => { path: string; language: string };
  /** Zeroed scratch, one per slot; scoring leaves it zeroed. */
  accumulator: Float64Array;
  /** Scratch the size of the accumulator for selections. */
  scratch: () => Float64Array;
  /** Zeroed marks, one per slot; scoring leaves them zeroed. */
  marks: () => Uint8Array;
}

export interface QueryTerm {
  termId: number;
  idf: number;
  postings: Postings;
}

export interface RowScore {
  rowId: number;
  score: number;
}

/** One term's BM25 contribution; every path computes it with exactly this expression. */
export function termScore(idf: number, frequency: number, length: number, averageLength: number): number {
  const norm = K1 * (1 - B + (B * length) / averageLength);
  return (idf * (frequency * (K1 + 1))) / (frequency + norm);
}

/** A slot's full score, its terms summed in query order (the order every path uses). */
function exactScore(view: ScoringView, slot: number, query: readonly QueryTerm[], averageLength: number): number {
  if (view.alive[slot] === 0) return 0;
  let score = 0;
  for (const { idf, postings } of query) {
    const entry = findSlot(postings, slot);
    if (entry < 0) continue;
    const frequency = postings.weighted[entry] as number;
    if (frequency <= 0) continue;
    score += termScore(idf, frequency, view.lengths[slot] as number, averageLength);
  }
  return score;
}

/** Where a slot's entry is in a term's postings (slot order, each slot once), or -1. */
function findSlot(postings: Postings, wanted: number): number {
  const values = postings.slots;
  let low = 0;
  let high = postings.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = values[middle] as number;
    if (value === wanted) return middle;
    if (value < wanted) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * Top-k BM25 over the postings, term at a time, with MaxScore-style pruning: terms go from
 * the largest possible contribution to the smallest; once the k-th best partial score beats
 * everything the unread terms could still add, no unseen row can enter the top k, so the
 * remaining terms only update the rows that still can (a binary search in each row's terms,
 * or a walk of a short posting list). The survivors are rescored in query order, so scores
 * are bit-identical to the exhaustive walk and to each other across paths.
 * `members` (when given) limits scoring to marked slots; `accept` is asked once per row.
 */
export function scoreTopK(
  view: ScoringView,
  query: readonly QueryTerm[],
  limit: number,
  averageLength: number,
  accept: RowFilter | undefined,
  members: Uint8Array | undefined,
  prune = true,
): RowScore[] {
  const accumulator = view.accumulator;
  const touched: number[] = [];
  const bounds = query.map(({ idf, postings }) => (idf * (postings.maxWeighted * (K1 + 1))) / (postings.maxWeighted + K1 * (1 - B)));
  const order = query.map((_, index) => index);
  if (prune) order.sort((a, b) => (bounds[b] as number) - (bounds[a] as number) || a - b);
  const remaining = new Float64Array(order.length + 1);
  for (let step = order.length - 1; step >= 0; step--) remaining[step] = (remaining[step + 1] as number) + (bounds[order[step] as number] as number);
  let viable: number[] | undefined;
  let marks: Uint8Array | undefined;
  try {
    for (let step = 0; step < order.length; step++) {
      const { idf, postings } = query[order[step] as number] as QueryTerm;
      const rest = remaining[step] as number;
      if (prune && step > 0 && touched.length >= limit && rest < (remaining[0] as number) - rest) {
        const theta = kthLargest(view, viable ?? touched, limit);
        const reach = theta - SLACK * Math.abs(theta);
        if (rest < reach) viable = (viable ?? touched).filter((slot) => (accumulator[slot] as number) + rest >= reach);
      }
      if (!viable) {
        const { slots, weighted, length } = postings;
        for (let index = 0; index < length; index++) {
          const slot = slots[index] as number;
          if (view.alive[slot] === 0 || (members !== undefined && members[slot] === 0)) continue;
          const frequency = weighted[index] as number;
          if (frequency <= 0) continue;
          if (accumulator[slot] === 0) {
            touched.push(slot);
            if (accept) {
              const meta = view.paths(slot);
              if (!accept(meta.path, meta.language)) {
                accumulator[slot] = -Infinity; // stays −∞: never a candidate, never a threshold
                continue;
              }
            }
          }
          accumulator[slot] = (accumulator[slot] as number) + termScore(idf, frequency, view.lengths[slot] as number, averageLength);
        }
        continue;
      }
      // Only rows that can still reach the top k: walk a short posting list against marks,
      // or look each such row up in the (slot-ordered) postings.
      if (postings.length < viable.length * 8) {
        marks ??= view.marks();
        for (const slot of viable) marks[slot] = 1;
        const { slots, weighted, length } = postings;
        for (let index = 0; index < length; index++) {
          const slot = slots[index] as number;
          if (marks[slot] === 0 || view.alive[slot] === 0) continue;
          const frequency = weighted[index] as number;
          if (frequency > 0) accumulator[slot] = (accumulator[slot] as number) + termScore(idf, frequency, view.lengths[slot] as number, averageLength);
        }
        for (const slot of viable) marks[slot] = 0;
      } else {
        for (const slot of viable) {
          if (view.alive[slot] === 0) continue;
          const entry = findSlot(postings, slot);
          if (entry < 0) continue;
          const frequency = postings.weighted[entry] as number;
          if (frequency > 0) accumulator[slot] = (accumulator[slot] as number) + termScore(idf, frequency, view.lengths[slot] as number, averageLength);
        }
      }
    }
    const pool = viable ?? touched;
    const top = new TopK(limit);
    if (!prune) {
      for (const slot of pool) {
        const score = accumulator[slot] as number;
        if (score > 0) top.push(view.rowIds[slot] as number, score);
      }
      return top.sorted().map(({ id, score }) => ({ rowId: id, score }));
    }
    // Partial sums were added in bound order: pick the head by them, then rescore it exactly.
    const approximate = new TopK(limit);
    for (const slot of pool) {
      const score = accumulator[slot] as number;
      if (score > 0) approximate.push(slot, score);
    }
    const floor = approximate.floor;
    const cut = floor === -Infinity ? 0 : floor - SLACK * Math.abs(floor);
    for (const slot of pool) {
      const score = accumulator[slot] as number;
      if (score > 0 && score >= cut) top.push(view.rowIds[slot] as number, exactScore(view, slot, query, averageLength));
    }
    return top.sorted().map(({ id, score }) => ({ rowId: id, score }));
  } finally {
    for (const slot of touched) accumulator[slot] = 0;
  }
}

/** The limit-th largest positive accumulated score among the slots (−∞ when fewer). */
function kthLargest(view: ScoringView, slots: readonly number[], limit: number): number {
  const values = view.scratch();
  let count = 0;
  for (const slot of slots) {
    const score = view.accumulator[slot] as number;
    if (score > 0) values[count++] = score;
  }
  if (count < limit) return -Infinity;
  // Quickselect for the element that would sit at index limit − 1 in descending order.
  let low = 0;
  let high = count - 1;
  const target = limit - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1] as number;
    let left = low;
    let right = high;
    while (left <= right) {
      while ((values[left] as number) > pivot) left++;
      while ((values[right] as number) < pivot) right--;
      if (left <= right) {
        const swap = values[left] as number;
        values[left] = values[right] as number;
        values[right] = swap;
        left++;
        right--;
      }
    }
    if (target <= right) high = right;
    else if (target >= left) low = left;
    else break;
  }
  return values[target] as number;
}

/** Scores only the given slots (a selective filter): the same sums in query order. */
export function scoreSlots(view: ScoringView, query: readonly QueryTerm[], limit: number, averageLength: number, accept: RowFilter, candidates: readonly number[]): RowScore[] {
  const top = new TopK(limit);
  if (query.length === 0) return [];
  for (const slot of candidates) {
    if (view.alive[slot] === 0) continue;
    const meta = view.paths(slot);
    if (!accept(meta.path, meta.language)) continue;
    const score = exactScore(view, slot, query, averageLength);
    if (score > 0) top.push(view.rowIds[slot] as number, score);
  }
  return top.sorted().map(({ id, score }) => ({ rowId: id, score }));
}
