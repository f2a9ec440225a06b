import type { RowFilter } from '../../store/filter-match.js';
import { TopK } from '../../store/top-k.js';
import { termScore, type QueryTerm, type RowScore, type ScoringView } from './bm25-scoring.js';
import type { Postings } from './posting-blocks.js';

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

/** Scores only the given slots (a selective filter): the same sums in query order. */
export function scoreSlots(view: ScoringView, query: readonly QueryTerm[], limit: number, averageLength: number, accept: RowFilter, candidates: readonly number[]): RowScore[] {
  const top = new TopK(limit);
  if (query.length === 0) return [];
  for (const slot of candidates) {
    if (view.alive[slot] === 0) continue;
    if (!view.accepts(slot, accept)) continue;
    const score = exactScore(view, slot, query, averageLength);
    if (score > 0) top.push(view.rowIds[slot] as number, score);
  }
  return top.sorted().map(({ id, score }) => ({ rowId: id, score }));
}
