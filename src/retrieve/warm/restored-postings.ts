import type { LexicalBase } from '../../store/segment-file.js';
import type { Postings } from './posting-blocks.js';

/**
 * The postings of a restored base (a segment file) not yet read: each term's are read once,
 * when a query, a write or a removal first touches the term, or when a long-lived process
 * reads the rest in the background.
 */
export class RestoredPostings {
  /** slot[termId]: the term's index in the base's term table; -1 once taken or absent. */
  private readonly slot: Int32Array;
  /** Term ids below this were visited by next(). */
  private cursor = 0;

  constructor(private readonly base: LexicalBase) {
    const { postingTerms } = base;
    this.slot = new Int32Array(postingTerms.length > 0 ? (postingTerms[postingTerms.length - 1] as number) + 1 : 0).fill(-1);
    for (let index = 0; index < postingTerms.length; index++) this.slot[postingTerms[index] as number] = index;
  }

  /** Whether the term has postings in the file not taken yet. */
  has(termId: number): boolean {
    return termId < this.slot.length && (this.slot[termId] as number) >= 0;
  }

  /** The term's postings from the file, once; undefined when it has none there or they were taken. */
  take(termId: number): Postings | undefined {
    const index = termId < this.slot.length ? (this.slot[termId] as number) : -1;
    if (index < 0) return undefined;
    const read = this.base.postings(index);
    this.slot[termId] = -1;
    return { slots: read.slots, weighted: read.weighted, length: read.slots.length, documentFrequency: read.slots.length, maxWeighted: this.base.postingMax[index] as number };
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
}
