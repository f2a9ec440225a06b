import { describe, expect, it } from 'vitest';
import type { RowFilter } from '../../store/filter-match.js';
import { LexicalIndex } from './lexical-index.js';
import { scoreTopK, termScore, type ScoringView } from './bm25-scoring.js';
import { K1, postingBlocks, type Postings } from './posting-blocks.js';

const weights = { path: 1.5, symbols: 2, heading: 1.5, body: 1 };

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** A corpus with a Zipf-like vocabulary: a few terms in most rows, many rare ones. */
function buildIndex(seed: number, rows: number, shift = 6) {
  const next = random(seed);
  const termIds = new Map<string, number>();
  const index = new LexicalIndex(weights, termIds, 0, shift); // prune every query, however small, over 64-slot windows
  const vocabulary = Array.from({ length: 2000 }, (_, id) => `t${id}`);
  vocabulary.forEach((term, id) => termIds.set(term, id + 1));
  const pick = () => Math.floor(vocabulary.length * next() ** 4);
  const addRow = (rowId: number, longer = 0) => {
    const counts = new Map<number, [number, number, number, number]>();
    const lengths: [number, number, number, number] = [2, next() < 0.3 ? 1 : 0, 0, 5 + longer + Math.floor(next() * 120)];
    for (let field = 0; field < 4; field++) {
      for (let token = 0; token < lengths[field]!; token++) {
        const id = pick() + 1;
        const entry = counts.get(id) ?? [0, 0, 0, 0];
        entry[field]!++;
        counts.set(id, entry);
      }
    }
    const ids = [...counts.keys()].sort((a, b) => a - b);
    const frequencies = new Uint16Array(ids.length * 4);
    ids.forEach((id, entry) => frequencies.set(counts.get(id)!, entry * 4));
    const folder = `dir${rowId % 7}`;
    index.add(rowId, { path: `${folder}/file${rowId}.txt`, language: rowId % 3 === 0 ? 'python' : 'markdown' }, { fieldLengths: lengths, termIds: Uint32Array.from(ids), frequencies });
  };
  for (let rowId = 1; rowId <= rows; rowId++) addRow(rowId);
  const query = () => Array.from({ length: 1 + Math.floor(next() * 6) }, () => vocabulary[pick()] as string);
  return { index, query, next, addRow };
}

describe('top-k pruning in the warm BM25 index', () => {
  it('returns exactly the exhaustive walk: same rows, same order, bit-identical scores', () => {
    const { index, query } = buildIndex(7, 4000);
    let pruned = 0;
    for (let round = 0; round < 300; round++) {
      const terms = query();
      for (const limit of [1, 10, 50]) {
        const fast = index.search(terms, limit);
        expect(fast).toEqual(index.searchExhaustive(terms, limit));
        if (fast.length === limit) pruned++;
      }
    }
    expect(pruned).toBeGreaterThan(500); // most queries fill the top k, so pruning had work to do
  });

  it("builds the long lists' block summaries ahead of queries, as their first query would, and queries use them as they are", () => {
    const { index, query } = buildIndex(7, 4000);
    const { index: twin } = buildIndex(7, 4000);
    const lists = (of: LexicalIndex) => (of as unknown as { lists: { get(termId: number): Postings | undefined } }).lists;
    const least = Math.max(64, (((4000 - 1) >> 6) + 1) * 8); // bm25-scoring.ts summarises lists from this length
    const all = Array.from({ length: 2000 }, (_, id) => id + 1);
    const long = all.filter((termId) => (lists(index).get(termId)?.length ?? 0) >= least);
    expect(long.length).toBeGreaterThan(5);
    expect(long.every((termId) => lists(index).get(termId)?.blocks === undefined)).toBe(true);
    let steps = 0;
    while (index.summarizeLongLists(0)) steps++; // a slice of no time still builds one list
    expect(steps).toBe(long.length - 1);
    expect(long.every((termId) => lists(index).get(termId)?.blocks?.covered === lists(index).get(termId)?.length)).toBe(true);
    expect(all.filter((termId) => lists(index).get(termId)?.blocks !== undefined)).toEqual(long);
    const before = long.map((termId) => lists(index).get(termId)?.blocks);
    for (let round = 0; round < 100; round++) {
      const terms = query();
      expect(index.search(terms, 10)).toEqual(twin.search(terms, 10));
    }
    expect(long.map((termId) => lists(index).get(termId)?.blocks)).toEqual(before);
    expect(long.every((termId, at) => lists(index).get(termId)?.blocks === before[at])).toBe(true);
  });

  it('stays exact with filters, prefixes, and after rows are removed or replaced', () => {
    const { index, query, next, addRow } = buildIndex(11, 3000);
    // Enough removals to compact the postings (over 1,024 dead and a quarter of all), then
    // new rows longer than any before (the average length moves).
    for (let rowId = 1; rowId <= 3000; rowId += 1 + Math.floor(next() * 3)) index.remove(rowId);
    for (let rowId = 3001; rowId <= 3400; rowId++) addRow(rowId, 150);
    const python: RowFilter = (_path, language) => language === 'python';
    const underDir: RowFilter = Object.assign((path: string) => path.startsWith('dir3/'), { prefixes: ['dir3/'] });
    for (let round = 0; round < 200; round++) {
      const terms = query();
      for (const accept of [undefined, python, underDir]) {
        for (const limit of [5, 40]) expect(index.search(terms, limit, accept)).toEqual(index.searchExhaustive(terms, limit, accept));
      }
    }
    expect(index.search(['t0'], 10, python).every((row) => Number(row.path.match(/file(\d+)/)?.[1]) % 3 === 0)).toBe(true);
  });

  it('stays exact while rows are appended between queries (window maxima extended, not stale)', () => {
    const { index, query, addRow } = buildIndex(5, 1500, 4);
    let rowId = 1500;
    for (let round = 0; round < 120; round++) {
      const terms = query();
      expect(index.search(terms, 20)).toEqual(index.searchExhaustive(terms, 20));
      // Longer rows and more of them: later windows get new maxima, the average length moves.
      for (let added = 0; added < 1 + (round % 7); added++) addRow(++rowId, round % 3 === 0 ? 300 : 0);
    }
  });

  it('summarises a posting list per window the same whether built at once or extended, and stays a bound', () => {
    const next = random(3);
    const lengths = Float64Array.from({ length: 5000 }, () => 1 + Math.floor(next() * 400));
    const slots: number[] = [];
    for (let slot = 0; slot < 5000; slot++) if (next() < 0.3) slots.push(slot);
    const weighted = Float32Array.from(slots, () => Math.floor(next() * 9));
    const list = (length: number): Postings => ({ slots: Int32Array.from(slots), weighted, length, documentFrequency: length, maxWeighted: 9 });
    const whole = postingBlocks(list(slots.length), lengths, 5, 120);
    const grown = list(0);
    for (const length of [1, 2, 200, 201, 900, slots.length]) {
      grown.length = length;
      postingBlocks(grown, lengths, 5, 120);
    }
    expect(grown.blocks).toEqual(whole);
    // Each window's range is its postings, and its factor their largest score over idf·(K1 + 1).
    const factorOf = (index: number, average: number) => termScore(1, weighted[index]!, lengths[slots[index]!]!, average) / (K1 + 1);
    for (let window = 0; window < whole.maxFactor.length; window++) {
      const inside = slots.map((slot, index) => ({ slot, index })).filter(({ slot }) => slot >> 5 === window);
      expect(whole.start[window]).toBe(inside[0]?.index ?? whole.start[window + 1]);
      if (inside.length === 0) continue;
      expect(whole.start[window + 1]).toBe(inside[inside.length - 1]!.index + 1);
      expect(whole.maxFactor[window]).toBeCloseTo(Math.max(...inside.map(({ index }) => factorOf(index, 120))), 12);
    }
    // Extended while the average length grows (each step within the rebuild threshold): older
    // windows are scaled, never left below a posting's score under the new average.
    const drifting = list(0);
    let average = 100;
    for (const length of [300, 600, 900, 1200, slots.length]) {
      drifting.length = length;
      average *= 1.02;
      postingBlocks(drifting, lengths, 5, average);
    }
    const blocks = drifting.blocks!;
    expect(blocks.loosened).toBeGreaterThan(1); // the scaling path ran
    for (let index = 0; index < slots.length; index++) {
      const window = slots[index]! >> 5;
      expect(blocks.maxFactor[window]! * (1 + 1e-12)).toBeGreaterThanOrEqual(factorOf(index, average));
    }
  });

  it('leaves nothing behind when a filter throws mid-window (a damaged segment block), so the next search is exact', () => {
    const rows = 64;
    const list = (slots: number[]): Postings => ({ slots: Int32Array.from(slots), weighted: Float32Array.from(slots, () => 1), length: slots.length, documentFrequency: slots.length, maxWeighted: 1 });
    const view = (accepts: ScoringView['accepts']): ScoringView => ({
      rowIds: Float64Array.from({ length: rows }, (_, slot) => 1000 + slot),
      alive: new Uint8Array(rows).fill(1),
      lengths: new Float64Array(rows).fill(10),
      accepts,
      accumulator: new Float64Array(rows),
      slotCount: rows,
    });
    const filter: RowFilter = Object.assign(() => true, {}); // accepts() decides here
    const failing = view((slot) => {
      if (slot === 3) throw new Error('the paths block fails its checksum');
      return true;
    });
    expect(() => scoreTopK(failing, [{ termId: 1, idf: 2, postings: list([3, 40, 50]) }], 10, 10, filter, undefined, true, 6)).toThrow(/checksum/);
    const retry = [{ termId: 2, idf: 2, postings: list([7, 40]) }];
    const sound = view(() => true);
    expect(scoreTopK(sound, retry, 10, 10, filter, undefined, true, 6)).toEqual(scoreTopK(sound, retry, 10, 10, filter, undefined, false, 6));
    // The same in a window of look-ups: the top 1 is full (slots 0-7), then in slots 16-23 the
    // rare term finds rows 20 and 22 and the common one is looked up; the filter throws at 20.
    const common = list(Array.from({ length: rows }, (_, slot) => slot));
    const throwing = view((slot) => {
      if (slot === 20) throw new Error('the paths block fails its checksum');
      return true;
    });
    const twoTerms = [
      { termId: 1, idf: 2, postings: list([0, 20, 22]) },
      { termId: 3, idf: 0.1, postings: common },
    ];
    expect(() => scoreTopK(throwing, twoTerms, 1, 10, filter, undefined, true, 3)).toThrow(/checksum/);
    const again = [{ termId: 4, idf: 2, postings: list([6, 30]) }]; // slot 30: row 22's place in its window
    expect(scoreTopK(sound, again, 10, 10, filter, undefined, true, 3)).toEqual(scoreTopK(sound, again, 10, 10, filter, undefined, false, 3));
  });

  it('scores only the marked members on every path, with no filter to check them again', () => {
    const rows = 256;
    const list = (slots: number[]): Postings => ({
      slots: Int32Array.from(slots),
      weighted: Float32Array.from(slots, (slot) => 1 + (slot % 3)),
      length: slots.length,
      documentFrequency: slots.length,
      maxWeighted: 3,
    });
    const view: ScoringView = {
      rowIds: Float64Array.from({ length: rows }, (_, slot) => 1000 + slot),
      alive: new Uint8Array(rows).fill(1),
      lengths: Float64Array.from({ length: rows }, (_, slot) => 5 + (slot % 17)),
      accepts: () => true,
      accumulator: new Float64Array(rows),
      slotCount: rows,
    };
    const members = Uint8Array.from({ length: rows }, (_, slot) => (slot % 5 === 0 ? 1 : 0));
    const every = Array.from({ length: rows }, (_, slot) => slot);
    const query = [
      { termId: 1, idf: 2, postings: list(every.filter((slot) => slot % 2 === 0)) },
      { termId: 2, idf: 0.5, postings: list(every) },
    ];
    for (const limit of [1, 5, 100]) {
      for (const shift of [3, 6]) {
        const pruned = scoreTopK(view, query, limit, 12, undefined, members, true, shift);
        expect(pruned).toEqual(scoreTopK(view, query, limit, 12, undefined, members, false, shift));
        expect(pruned.every(({ rowId }) => members[rowId - 1000] === 1)).toBe(true);
      }
    }
  });

  it('returns no row whose score is not a number, as the exhaustive walk does (rows of no length, an average of 0)', () => {
    const termIds = new Map([['a', 1]]);
    const index = new LexicalIndex(weights, termIds, 0, 6);
    for (let rowId = 1; rowId <= 10; rowId++)
      index.add(rowId, { path: `f${rowId}.txt`, language: 'text' }, { fieldLengths: [0, 0, 0, 0], termIds: Uint32Array.of(1), frequencies: Uint16Array.of(0, 0, 0, 1) });
    expect(index.searchExhaustive(['a'], 3)).toEqual([]);
    expect(index.search(['a'], 3)).toEqual([]);
  });
});
