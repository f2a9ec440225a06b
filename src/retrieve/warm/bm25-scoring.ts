import type { RowFilter } from '../../store/filter-match.js';
import { TopK } from '../../store/top-k.js';
import { B, K1, loosening, postingBlocks, summarizedFrom, WINDOW_SHIFT, type Postings } from './posting-blocks.js';

/** Relative slack on pruning decisions, far above float rounding, far below real gaps. */
const SLACK = 1e-9;

/** What scoring reads of the index: per-slot arrays, indexed by slot. */
export interface ScoringView {
  /** The row id in each slot: ties rank the smaller row id first, on every path. */
  rowIds: Float64Array;
  alive: Uint8Array;
  lengths: Float64Array;
  /** Whether the slot's row passes the filter (MetaSlots.accepts). */
  accepts: (slot: number, accept: RowFilter) => boolean;
  /** Zeroed scratch, one per slot; scoring leaves it zeroed. */
  accumulator: Float64Array;
  /** Slots in use (live or dead): every posting's slot is below it. */
  slotCount: number;
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

/** Reused scratch for scoreTopK (scoring is synchronous, never re-entered). */
let windowScores = new Float64Array(0);
/** One bit per slot of a window: the rows the essential terms found there. */
let windowFound = new Int32Array(0);

/**
 * Top-k BM25 with block-max MaxScore pruning, document at a time within windows of
 * 2^shift slots. Every query term's bound in a window is its block maximum (long lists) or its
 * global maximum (short ones), 0 where it has no posting; a window whose bounds together fall
 * short of the k-th best score so far (the threshold) is skipped. (Visiting windows by their
 * bound sum, largest first, cost more in sorting than it saved at 1M rows.) In a window,
 * terms are ordered by bound; the smallest ones
 * whose bounds sum below the threshold are non-essential: no row holding only those can enter
 * the top k. The essential terms' postings in the window are accumulated; each row found is
 * then completed term by term (largest bound first) and dropped as soon as what it has plus
 * what the rest could add falls short. Rows are visited in slot order, so a term's postings
 * in the window are searched forward from where the last row's search ended. Rows that
 * survive are scored exactly (terms summed in query order, the expression every path uses), so
 * scores are bit-identical to the exhaustive walk. A window where the non-essential terms have
 * no more postings than the essential ones (every window until the top k fills) sums every
 * posting exactly instead, in query order, with no look-ups: at 100k rows that took a fifth
 * off a query, at 1M it is level (docs/benchmarks.md). `members` (when given) limits scoring to
 * marked slots; `accept` is asked at most once per row.
 */
export function scoreTopK(
  view: ScoringView,
  query: readonly QueryTerm[],
  limit: number,
  averageLength: number,
  accept: RowFilter | undefined,
  members: Uint8Array | undefined,
  prune = true,
  shift = WINDOW_SHIFT,
): RowScore[] {
  if (!prune) return scoreExhaustive(view, query, limit, averageLength, accept, members);
  const terms = query.length;
  const width = 1 << shift;
  if (terms === 0 || limit <= 0 || view.slotCount === 0) return [];
  const words = (width + 31) >> 5;
  if (windowScores.length < width) windowScores = new Float64Array(width);
  if (windowFound.length < words) windowFound = new Int32Array(words);
  const scores = windowScores;
  const found = windowFound;
  const { alive, lengths, rowIds } = view;
  const windows = ((view.slotCount - 1) >> shift) + 1;
  const slotsOf: Int32Array[] = [];
  const weightedOf: Float32Array[] = [];
  const idfs = new Float64Array(terms);
  /** idf·(K1 + 1): the accumulation's score is this times the saturation (rounding aside). */
  const scaled = new Float64Array(terms);
  // Per window and term (window·terms + term): the term's postings there and its bound.
  const low = new Int32Array(windows * terms);
  const high = new Int32Array(windows * terms);
  const bounds = new Float64Array(windows * terms);
  const totals = new Float64Array(windows);
  for (let term = 0; term < terms; term++) {
    const { idf, postings } = query[term] as QueryTerm;
    const { slots, length } = postings;
    slotsOf.push(slots);
    weightedOf.push(postings.weighted);
    idfs[term] = idf;
    scaled[term] = idf * (K1 + 1);
    if (length >= summarizedFrom(windows)) {
      const blocks = postingBlocks(postings, lengths, shift, averageLength);
      const scale = idf * (K1 + 1) * loosening(blocks.averageLength, averageLength);
      const covered = blocks.maxFactor.length;
      for (let window = 0; window < covered; window++) {
        const from = blocks.start[window] as number;
        const to = blocks.start[window + 1] as number;
        if (to === from) continue;
        const at = window * terms + term;
        low[at] = from;
        high[at] = to;
        const bound = scale * (blocks.maxFactor[window] as number);
        bounds[at] = bound;
        totals[window] = (totals[window] as number) + bound;
      }
    } else {
      const bound = termScore(idf, postings.maxWeighted, 0, averageLength);
      let index = 0;
      while (index < length) {
        const window = (slots[index] as number) >> shift;
        const end = (window + 1) << shift;
        const from = index;
        while (index < length && (slots[index] as number) < end) index++;
        const at = window * terms + term;
        low[at] = from;
        high[at] = index;
        bounds[at] = bound;
        totals[window] = (totals[window] as number) + bound;
      }
    }
  }
  const order = new Int32Array(terms);
  /** below[j]: the bounds of order[0..j) summed. */
  const below = new Float64Array(terms + 1);
  /** Per term in the current window: whether it is essential, and where its next search starts. */
  const essential = new Uint8Array(terms);
  const cursor = new Int32Array(terms);
  /** A row's frequency of each non-essential term, found while completing it. */
  const completed = new Float64Array(terms);
  const c0 = K1 * (1 - B);
  const c1 = (K1 * B) / averageLength;
  const top = new TopK(limit);
  let reach = Number.NEGATIVE_INFINITY;
  /** The window scoreWholeWindow scores (one object per query: `first` and `row` move with the window). */
  const whole: WholeWindow = { first: 0, row: 0, words, slotsOf, weightedOf, idfs, low, high };
  try {
    for (let window = 0; window < windows; window++) {
      const total = totals[window] as number;
      if (total === 0 || total < reach) continue; // no posting here, or none that can reach the top k
      const first = window << shift;
      const row = window * terms;
      // Terms by bound, smallest first (insertion sort: queries have few terms).
      for (let term = 0; term < terms; term++) {
        let at = term;
        const bound = bounds[row + term] as number;
        while (at > 0 && (bounds[row + (order[at - 1] as number)] as number) > bound) {
          order[at] = order[at - 1] as number;
          at--;
        }
        order[at] = term;
      }
      let essentialFrom = 0;
      for (let step = 0; step < terms; step++) {
        below[step + 1] = (below[step] as number) + (bounds[row + (order[step] as number)] as number);
        if ((below[step + 1] as number) < reach) essentialFrom = step + 1;
      }
      // Every term essential, or the others' postings here no more than the essential ones':
      // summing every posting costs less than looking rows up in the other lists.
      let essentialPostings = 0;
      let otherPostings = 0;
      for (let step = 0; step < terms; step++) {
        const term = order[step] as number;
        const count = (high[row + term] as number) - (low[row + term] as number);
        if (step >= essentialFrom) essentialPostings += count;
        else otherPostings += count;
      }
      if (otherPostings <= essentialPostings) {
        whole.first = first;
        whole.row = row;
        reach = scoreWholeWindow(view, whole, averageLength, accept, members, top, reach);
        continue;
      }
      for (let step = 0; step < terms; step++) {
        const term = order[step] as number;
        essential[term] = step >= essentialFrom ? 1 : 0;
        cursor[term] = low[row + term] as number;
      }
      // Accumulate the essential terms' postings of this window.
      for (let step = essentialFrom; step < terms; step++) {
        const term = order[step] as number;
        const slots = slotsOf[term] as Int32Array;
        const weighted = weightedOf[term] as Float32Array;
        const factor = scaled[term] as number;
        for (let index = low[row + term] as number, stop = high[row + term] as number; index < stop; index++) {
          const slot = slots[index] as number;
          if (alive[slot] === 0 || (members !== undefined && members[slot] === 0)) continue;
          const frequency = weighted[index] as number;
          if (frequency <= 0) continue;
          const offset = slot - first;
          found[offset >> 5] = (found[offset >> 5] as number) | (1 << (offset & 31));
          scores[offset] = (scores[offset] as number) + (factor * frequency) / (frequency + c0 + c1 * (lengths[slot] as number));
        }
      }
      // Complete each row found, in slot order, or drop it once it cannot reach the top k.
      for (let word = 0; word < words; word++) {
        let bits = found[word] as number;
        if (bits === 0) continue;
        found[word] = 0;
        while (bits !== 0) {
          const lowest = bits & -bits;
          bits ^= lowest;
          const offset = (word << 5) + 31 - Math.clz32(lowest);
          const slot = first + offset;
          let score = scores[offset] as number;
          scores[offset] = 0;
          let viable = true;
          for (let step = essentialFrom - 1; step >= 0; step--) {
            if (score + (below[step + 1] as number) < reach) {
              viable = false;
              break;
            }
            const term = order[step] as number;
            const frequency = frequencyAt(slotsOf[term] as Int32Array, weightedOf[term] as Float32Array, cursor, term, high[row + term] as number, slot);
            completed[term] = frequency;
            if (frequency > 0) score += ((scaled[term] as number) * frequency) / (frequency + c0 + c1 * (lengths[slot] as number));
          }
          if (viable && score >= reach && (accept === undefined || view.accepts(slot, accept))) {
            let exact = 0;
            for (let term = 0; term < terms; term++) {
              const frequency =
                essential[term] === 1 ? frequencyAt(slotsOf[term] as Int32Array, weightedOf[term] as Float32Array, cursor, term, high[row + term] as number, slot) : (completed[term] as number);
              if (frequency > 0) exact += termScore(idfs[term] as number, frequency, lengths[slot] as number, averageLength);
            }
            top.push(rowIds[slot] as number, exact);
            const floor = top.floor;
            if (floor !== Number.NEGATIVE_INFINITY) reach = floor - SLACK * Math.abs(floor);
          }
        }
      }
    }
  } catch (error) {
    // A filter that throws (a damaged segment block) leaves the window's marks: cleared for the next search.
    found.fill(0, 0, words);
    scores.fill(0, 0, width);
    throw error;
  }
  return top.sorted().map(({ id, score }) => ({ rowId: id, score }));
}

/** One window of scoreTopK, for scoreWholeWindow: the query terms' postings there (at row + term). */
interface WholeWindow {
  first: number;
  row: number;
  /** Words of the window's found bits. */
  words: number;
  slotsOf: readonly Int32Array[];
  weightedOf: readonly Float32Array[];
  idfs: Float64Array;
  low: Int32Array;
  high: Int32Array;
}

/**
 * Scores every row of one window exactly, every term's postings summed in query order (the
 * exhaustive walk's sums, bit for bit), and offers those that reach the threshold to the top
 * k. Returns the threshold after them. Its loop is scoreTopK's accumulation with termScore's
 * expression: that one's cheaper expression is a bound only, and termScore there cost 8–11 %
 * at 1M rows (the two loops are kept apart on purpose).
 */
function scoreWholeWindow(view: ScoringView, window: WholeWindow, averageLength: number, accept: RowFilter | undefined, members: Uint8Array | undefined, top: TopK, reach: number): number {
  const { alive, lengths, rowIds } = view;
  const { first, row, words, slotsOf, weightedOf, idfs, low, high } = window;
  const scores = windowScores;
  const found = windowFound;
  for (let term = 0; term < idfs.length; term++) {
    const slots = slotsOf[term] as Int32Array;
    const weighted = weightedOf[term] as Float32Array;
    const idf = idfs[term] as number;
    for (let index = low[row + term] as number, stop = high[row + term] as number; index < stop; index++) {
      const slot = slots[index] as number;
      if (alive[slot] === 0 || (members !== undefined && members[slot] === 0)) continue;
      const frequency = weighted[index] as number;
      if (frequency <= 0) continue;
      const offset = slot - first;
      found[offset >> 5] = (found[offset >> 5] as number) | (1 << (offset & 31));
      scores[offset] = (scores[offset] as number) + termScore(idf, frequency, lengths[slot] as number, averageLength);
    }
  }
  let threshold = reach;
  for (let word = 0; word < words; word++) {
    let bits = found[word] as number;
    if (bits === 0) continue;
    found[word] = 0;
    while (bits !== 0) {
      const lowest = bits & -bits;
      bits ^= lowest;
      const offset = (word << 5) + 31 - Math.clz32(lowest);
      const score = scores[offset] as number;
      scores[offset] = 0;
      if (!(score >= threshold) || (accept !== undefined && !view.accepts(first + offset, accept))) continue; // a NaN never enters, as on every path
      top.push(rowIds[first + offset] as number, score);
      const floor = top.floor;
      if (floor !== Number.NEGATIVE_INFINITY) threshold = floor - SLACK * Math.abs(floor);
    }
  }
  return threshold;
}

/**
 * The term's weighted frequency in row `slot` (0 without a posting there), searching its
 * ascending postings from cursor[term] up to `stop` and leaving the cursor at the first posting
 * not below `slot` (rows are asked for in rising slot order): a doubling step, then a binary search.
 */
function frequencyAt(slots: Int32Array, weighted: Float32Array, cursor: Int32Array, term: number, stop: number, slot: number): number {
  let low = cursor[term] as number;
  if (low >= stop || (slots[low] as number) >= slot) return low < stop && slots[low] === slot ? (weighted[low] as number) : 0;
  // slots[low] < slot: gallop to a bound at or past it.
  let step = 1;
  let high = low + 1;
  while (high < stop && (slots[high] as number) < slot) {
    low = high;
    step *= 2;
    high = low + step;
  }
  if (high > stop) high = stop;
  // slots[low] < slot, and slots[high] >= slot (or high = stop): the first index >= slot lies in (low, high].
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if ((slots[middle] as number) < slot) low = middle;
    else high = middle;
  }
  cursor[term] = high;
  return high < stop && slots[high] === slot ? (weighted[high] as number) : 0;
}

/** Every posting of every term, in query order (the reference the pruned walk must equal). */
function scoreExhaustive(view: ScoringView, query: readonly QueryTerm[], limit: number, averageLength: number, accept: RowFilter | undefined, members: Uint8Array | undefined): RowScore[] {
  const accumulator = view.accumulator;
  const touched: number[] = [];
  try {
    for (const { idf, postings } of query) {
      const { slots, weighted, length } = postings;
      for (let index = 0; index < length; index++) {
        const slot = slots[index] as number;
        if (view.alive[slot] === 0 || (members !== undefined && members[slot] === 0)) continue;
        const frequency = weighted[index] as number;
        if (frequency <= 0) continue;
        if (accumulator[slot] === 0) {
          touched.push(slot);
          if (accept) {
            if (!view.accepts(slot, accept)) {
              accumulator[slot] = Number.NEGATIVE_INFINITY; // stays −∞: never a candidate
              continue;
            }
          }
        }
        accumulator[slot] = (accumulator[slot] as number) + termScore(idf, frequency, view.lengths[slot] as number, averageLength);
      }
    }
    const top = new TopK(limit);
    for (const slot of touched) {
      const score = accumulator[slot] as number;
      if (score > 0) top.push(view.rowIds[slot] as number, score);
    }
    return top.sorted().map(({ id, score }) => ({ rowId: id, score }));
  } finally {
    for (const slot of touched) accumulator[slot] = 0;
  }
}
