import { describe, expect, it } from 'vitest';
import type { LexicalBase } from '../../store/segment-format.js';
import { PostingLists } from './posting-lists.js';

/** Terms 0, 2, 4 … 18, term t held by rows 0 … t + 2 (slots), weight slot + t / 10; postings(index) calls counted. */
function base(): { base: LexicalBase; reads: number[] } {
  const terms = Array.from({ length: 10 }, (_, index) => index * 2);
  const reads: number[] = [];
  const listOf = (term: number) => Array.from({ length: term + 3 }, (_, slot) => slot);
  const offsets = [0];
  for (const term of terms) offsets.push((offsets.at(-1) as number) + listOf(term).length);
  const lexical = {
    postingTerms: Uint32Array.from(terms),
    postingOffsets: Uint32Array.from(offsets),
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
    Int32Array.from(entries, ([term]) => term),
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

/** Terms [from, to) of base() laid out as the file lays out postings ([slots][weights] per term): what the prefetch thread hands over. */
function rangeOf(from: number, to: number): { from: number; to: number; buffer: ArrayBuffer } {
  const { base: source } = base();
  const parts = Array.from({ length: to - from }, (_, at) => source.postings(from + at));
  const buffer = new ArrayBuffer(parts.reduce((sum, part) => sum + 8 * part.slots.length, 0));
  let offset = 0;
  for (const { slots, weighted } of parts) {
    new Int32Array(buffer, offset, slots.length).set(slots);
    new Float32Array(buffer, offset + 4 * slots.length, weighted.length).set(weighted);
    offset += 8 * slots.length;
  }
  return { from, to, buffer };
}

describe('long lists', () => {
  it('are found by their stored length without reading a restored list, and by their length once read or appended to', () => {
    const lists = new PostingLists();
    const { base: restoredBase, reads } = base();
    lists.restore(restoredBase);
    expect(lists.termsWithAtLeast(15).sort((a, b) => a - b)).toEqual([12, 14, 16, 18]);
    expect(reads).toEqual([]);
    lists.get(12);
    for (let slot = 40; slot < 60; slot++) lists.append(30, slot, 1); // a new term of 20 postings
    expect(lists.termsWithAtLeast(15).sort((a, b) => a - b)).toEqual([12, 14, 16, 18, 30]);
    expect(eager().termsWithAtLeast(21)).toEqual([18]);
  });
});

describe('postings another thread read', () => {
  it('give the same lists, changes made meanwhile included, and read nothing from the file; ranges out of order or of the wrong size are ignored', () => {
    const { base: restoredBase, reads } = base();
    const lists = new PostingLists();
    lists.restore(restoredBase);
    change(lists);
    expect(shape(lists, 0)).toBeDefined(); // term index 0 read from the file before any range came
    lists.adoptRange(rangeOf(0, 4)); // terms 0–6; term 0 already taken
    lists.adoptRange(rangeOf(2, 6)); // overlaps the last range: ignored
    lists.adoptRange({ ...rangeOf(6, 8), buffer: new ArrayBuffer(8) }); // the wrong size: ignored
    lists.adoptRange(rangeOf(8, 10)); // terms 16, 18
    const reference = eager();
    change(reference);
    for (let term = 0; term < 22; term++) expect(shape(lists, term)).toEqual(shape(reference, term));
    // Read from the file: term 0 (before the ranges) and terms 8–14 (indexes 4–7, in no range kept).
    expect(reads).toEqual([0, 4, 5, 6, 7]);
  });
});

describe('grouped appends', () => {
  it('give the lists that appending each entry in order gives, over many calls and term ids past any earlier one', () => {
    let seed = 11;
    // mulberry32: a small seeded generator, so a failure repeats.
    const random = (below: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
      return Math.floor((((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32) * below);
    };
    const grouped = new PostingLists();
    grouped.restore(base().base); // terms 0–18 restored and unread: their entries are deferred
    const oneByOne = new PostingLists();
    oneByOne.restore(base().base);
    let slot = 100;
    for (const [calls, termRange] of [
      [5, 30],
      [5, 5_000],
      [3, 200_000], // past the scratch counts' size: grown
    ] as const) {
      for (let call = 0; call < calls; call++) {
        const entries: Array<[number, number, number]> = [];
        for (let row = 0; row < 40; row++, slot++) {
          const terms = new Set(Array.from({ length: 1 + random(12) }, () => (random(4) === 0 ? random(20) : random(termRange))));
          for (const term of terms) entries.push([term, slot, Math.fround(random(1000) / 7)]);
        }
        grouped.appendByTerm(
          Int32Array.from(entries, ([term]) => term),
          Int32Array.from(entries, ([, at]) => at),
          Float32Array.from(entries, ([, , weight]) => weight),
        );
        for (const [term, at, weight] of entries) oneByOne.append(term, at, weight);
      }
    }
    grouped.materializeAll();
    oneByOne.materializeAll();
    const all = (lists: PostingLists) => Array.from({ length: 200_000 }, (_, term) => shape(lists, term)).map((list, term) => list && { term, ...list });
    const expected = all(oneByOne).filter(Boolean);
    expect(expected.length).toBeGreaterThan(1_000);
    expect(all(grouped).filter(Boolean)).toEqual(expected);
  });
});

describe('lists placed in any term order', () => {
  it('are found by their term id, listed in ascending ids, and a list emptied by a compaction is placed again', () => {
    const lists = new PostingLists();
    const terms = [900_000, 3, 500_000, 17, 1_500_000, 4];
    terms.forEach((term, at) => {
      lists.append(term, at, term % 7);
      lists.append(term, 10 + at, 1);
    });
    for (const [at, term] of terms.entries()) expect(shape(lists, term)?.slots).toEqual([at, 10 + at]);
    expect(lists.get(2)).toBeUndefined();
    expect(lists.get(2_000_000)).toBeUndefined();
    expect(lists.heldTermIds()).toEqual([3, 4, 17, 500_000, 900_000, 1_500_000]);
    // Slots 1 and 11 (term 3's) are gone; the rest move down.
    const remap = Int32Array.from({ length: 16 }, (_, slot) => (slot === 1 || slot === 11 ? -1 : slot - (slot > 11 ? 2 : slot > 1 ? 1 : 0)));
    lists.compact(remap);
    expect(lists.get(3)).toBeUndefined();
    expect(lists.heldTermIds()).toEqual([4, 17, 500_000, 900_000, 1_500_000]);
    expect(lists.termsWithAtLeast(1).sort((a, b) => a - b)).toEqual([4, 17, 500_000, 900_000, 1_500_000]);
    expect(shape(lists, 1_500_000)?.slots).toEqual([3, 12]);
    lists.append(3, 20, 2);
    expect(shape(lists, 3)).toEqual({ slots: [20], weighted: [2], documentFrequency: 1, maxWeighted: 2 });
    expect(lists.heldTermIds()).toEqual([3, 4, 17, 500_000, 900_000, 1_500_000]);
  });
});

describe('a restored base with term ids far apart', () => {
  it('reads, defers and lists them as the same lists appended directly', () => {
    const terms = [5, 70_000, 2_000_000];
    const listOf = (term: number) => Array.from({ length: 3 + (term % 4) }, (_, slot) => slot * 2);
    const offsets = [0];
    for (const term of terms) offsets.push((offsets.at(-1) as number) + listOf(term).length);
    const restoredBase = {
      postingTerms: Uint32Array.from(terms),
      postingOffsets: Uint32Array.from(offsets),
      postingMax: Float32Array.from(terms, () => 3),
      postings: (index: number) => {
        const slots = listOf(terms[index] as number);
        return { slots: Int32Array.from(slots), weighted: Float32Array.from(slots, (slot) => 1 + (slot % 3)) };
      },
    } as unknown as LexicalBase;
    const restored = new PostingLists();
    restored.restore(restoredBase);
    const direct = new PostingLists();
    for (const term of terms) for (const slot of listOf(term)) direct.append(term, slot, 1 + (slot % 3));
    for (const lists of [restored, direct]) {
      lists.get(2_000_000);
      lists.get(5);
      lists.append(70_000, 40, 2); // 70,000 unread in the base: deferred
      lists.removeDocument(5);
    }
    restored.materializeAll();
    expect(restored.heldTermIds()).toEqual(terms);
    for (const term of terms) expect(shape(restored, term)).toEqual(shape(direct, term));
    expect(shape(restored, 70_000)?.slots.at(-1)).toBe(40);
  });
});
