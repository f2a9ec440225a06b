import { type LexicalBase, postingViews } from '../../store/segment-file.js';
import type { Postings } from './posting-blocks.js';

/** Postings of terms [from, to) read elsewhere (another thread) as the file lays them out, from postingOffsets[from]. */
export interface PostingRange {
  from: number;
  to: number;
  buffer: ArrayBuffer;
}

/**
 * The postings of a restored base (a segment file) not yet read: each term's are read once,
 * when a query, a write or a removal first touches the term, or when a long-lived process
 * reads the rest in the background. Ranges read by a background thread are kept as they came
 * (a term taken from one costs two views, no read), so adopting a range costs nothing per term.
 */
export class RestoredPostings {
  /** slot[termId]: the term's index in the base's term table; -1 once taken or absent. */
  private readonly slot: Int32Array;
  /** Term ids below this were visited by next(). */
  private cursor = 0;
  /** Ranges read elsewhere, in ascending, disjoint term indexes, with how many of each one's terms are not taken yet (a range is let go once all are). */
  private readonly ranges: Array<PostingRange & { untaken: number }> = [];
  /** The file's slots as compactions since renumbered them (−1: the row is gone): applied to a list when it is taken. */
  private renumbered: Int32Array | undefined;

  constructor(private readonly base: LexicalBase) {
    const { postingTerms } = base;
    this.slot = new Int32Array(postingTerms.length > 0 ? (postingTerms[postingTerms.length - 1] as number) + 1 : 0).fill(-1);
    for (let index = 0; index < postingTerms.length; index++) this.slot[postingTerms[index] as number] = index;
  }

  /** Whether the term has postings in the file not taken yet. */
  has(termId: number): boolean {
    return termId < this.slot.length && (this.slot[termId] as number) >= 0;
  }

  /** Keeps a range another thread read and checked (postings(): checksum and slots); one out of order or beyond the table is ignored. */
  adopt(range: PostingRange): void {
    const { from, to, buffer } = range;
    const offsets = this.base.postingOffsets;
    const last = this.ranges.at(-1);
    if (!(from >= (last?.to ?? 0) && to > from && to < offsets.length)) return;
    if (buffer.byteLength !== 8 * ((offsets[to] as number) - (offsets[from] as number))) return;
    const { postingTerms } = this.base;
    let untaken = 0;
    for (let index = from; index < to; index++) if (this.slot[postingTerms[index] as number] === index) untaken++;
    if (untaken > 0) this.ranges.push({ from, to, buffer, untaken });
  }

  /** The term's postings from the file, once; undefined when it has none there or they were taken. */
  take(termId: number): Postings | undefined {
    const index = termId < this.slot.length ? (this.slot[termId] as number) : -1;
    if (index < 0) return undefined;
    const read = this.fromRange(index) ?? this.base.postings(index);
    this.slot[termId] = -1;
    const length = this.renumbered ? renumber(read.slots, read.weighted, this.renumbered) : read.slots.length;
    return { slots: read.slots, weighted: read.weighted, length, documentFrequency: length, maxWeighted: this.base.postingMax[index] as number };
  }

  /**
   * A compaction renumbered the slots (`remap`, −1: gone): lists not taken yet are renumbered
   * when taken, so a compaction need not read every list of the file first (at 35k rows that
   * read took ~0.7 s of a compaction that held searches ~1.2 s).
   */
  renumberLater(remap: Int32Array): void {
    const before = this.renumbered;
    const rows = this.base.rowIds.length;
    const next = new Int32Array(rows);
    for (let slot = 0; slot < rows; slot++) {
      const at = before ? (before[slot] as number) : slot;
      next[slot] = at < 0 ? -1 : (remap[at] ?? -1);
    }
    this.renumbered = next;
  }

  /** Up to `count` more term ids not taken yet (all of them without a count), in id order. */
  next(count = Number.POSITIVE_INFINITY): number[] {
    const out: number[] = [];
    while (this.cursor < this.slot.length && out.length < count) {
      if ((this.slot[this.cursor] as number) >= 0) out.push(this.cursor);
      this.cursor++;
    }
    return out;
  }

  get done(): boolean {
    return this.cursor >= this.slot.length;
  }

  /** Term ids whose stored list holds at least `length` postings (taken or not), in id order. */
  termsWithAtLeast(length: number): number[] {
    const offsets = this.base.postingOffsets;
    const terms = this.base.postingTerms;
    const out: number[] = [];
    for (let index = 0; index < terms.length; index++) if ((offsets[index + 1] as number) - (offsets[index] as number) >= length) out.push(terms[index] as number);
    return out;
  }

  /** Term index `index`'s lists within an adopted range, if one holds it (called once per term: the term is being taken). */
  private fromRange(index: number): { slots: Int32Array; weighted: Float32Array } | undefined {
    const ranges = this.ranges;
    let low = 0;
    let high = ranges.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const range = ranges[middle] as PostingRange & { untaken: number };
      if (index < range.from) high = middle - 1;
      else if (index >= range.to) low = middle + 1;
      else {
        // The caller takes the term: once every term is taken, only their views hold the buffer.
        if (--range.untaken === 0) ranges.splice(middle, 1);
        const offsets = this.base.postingOffsets;
        const first = offsets[range.from] as number;
        const start = offsets[index] as number;
        return postingViews(range.buffer, 8 * (start - first), (offsets[index + 1] as number) - start);
      }
    }
    return undefined;
  }
}

/** Slots or weights a list keeps: its typed arrays, or the plain ones of changes kept for an unread list. */
type Entries = { [index: number]: number; readonly length: number };

/** Renumbers a list's slots in place by `remap`, dropping those of gone rows (−1); returns the entries kept. */
export function renumber(slots: Entries, weighted: Entries, remap: Int32Array, length = slots.length): number {
  let write = 0;
  for (let read = 0; read < length; read++) {
    const target = remap[slots[read] as number] ?? -1;
    if (target < 0) continue;
    slots[write] = target;
    weighted[write] = weighted[read] as number;
    write++;
  }
  return write;
}
