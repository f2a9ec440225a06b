import { describe, expect, it } from 'vitest';
import type { LexicalBase } from '../../store/segment-format.js';
import { BATCH_ENTRIES, PostingLists } from './posting-lists.js';

/** Terms 0, 2, 4 … 18, term t held by rows 0 … t + 2 (slots), weight slot + t / 10; postings(index) calls counted. */
function base(): { base: LexicalBase; reads: number[] } {
  const terms = Array.from({ length: 10 }, (_, index) => index * 2);
  const reads: number[] = [];
  const listOf = (term: number) => Array.from({ length: term + 3 }, (_, slot) => slot);
  const lexical = {
    postingTerms: Uint32Array.from(terms),
    postingMax: Float32Array.from(terms, (term) => term + 2 + term / 10),
    postings: (index: number) => {
      reads.push(index);
      const term = terms[index] as number;
      return { slots: Int32Array.from(listOf(term)), weighted: Float32Array.from(listOf(term), (slot) => slot + term / 10) };
    },
  } as unknown as LexicalBase;
  return { base: lexical, reads };
}

/** The same lists, appended one by one with nothing restored. */
function eager(): PostingLists {
  const lists = new PostingLists();
  for (let term = 0; term < 20; term += 2) for (let slot = 0; slot < term + 3; slot++) lists.append(term, slot, Math.fround(slot + term / 10)); // weights are f32, as an index stores them
  return lists;
}

/** Rows 30–33 added (terms 4, 6 and the new term 21; one grouped, one by one), then rows holding 6, 8 and 21 removed. */
function change(lists: PostingLists): void {
  const entries = [
    [4, 30, 1.5],
    [6, 30, 2.5],
    [21, 31, 0.5],
    [4, 32, 40],
  ] as const;
  lists.appendByTerm(
    Float64Array.from(entries, ([term], index) => term * BATCH_ENTRIES + index),
    Int32Array.from(entries, ([, slot]) => slot),
    Float32Array.from(entries, ([, , weight]) => weight),
  );
  lists.append(6, 33, 3);
  for (const term of [6, 8, 21]) lists.removeDocument(term);
}

const shape = (lists: PostingLists, term: number) => {
  const postings = lists.get(term);
  return (
    postings && {
      slots: [...postings.slots.subarray(0, postings.length)],
      weighted: [...postings.weighted.subarray(0, postings.length)],
      documentFrequency: postings.documentFrequency,
      maxWeighted: postings.maxWeighted,
    }
  );
};

describe('posting lists over a restored base', () => {
  it('take rows added and removed before a list is read without reading it, and read it as the same list', () => {
    const { base: restoredBase, reads } = base();
    const restored = new PostingLists();
    restored.restore(restoredBase);
    change(restored);
    expect(reads).toEqual([]); // a catch-up's changes read no list
    const reference = eager();
    change(reference);
    for (const term of [4, 6, 8, 21, 0, 3]) expect(shape(restored, term)).toEqual(shape(reference, term));
    expect(reads).toEqual([2, 3, 4, 0]); // each read once, when first asked for
    expect(shape(restored, 4)?.documentFrequency).toBe(4 + 3 + 2);
    expect(shape(restored, 6)?.documentFrequency).toBe(6 + 3 + 2 - 1);
    expect(shape(restored, 4)?.maxWeighted).toBe(40);

    // Read later by the background prefetch or materializeAll: the same.
    const again = new PostingLists();
    again.restore(base().base);
    change(again);
    again.materializeAll();
    for (let term = 0; term < 22; term++) expect(shape(again, term)).toEqual(shape(reference, term));
    // Changes to a list already read go to it directly.
    again.append(4, 50, 1);
    again.removeDocument(4);
    reference.append(4, 50, 1);
    reference.removeDocument(4);
    expect(shape(again, 4)).toEqual(shape(reference, 4));
  });
});
