import { describe, expect, it } from 'vitest';
import type { RowFilter } from '../../store/filter-match.js';
import { LexicalIndex } from './lexical-index.js';

const weights = { path: 1.5, symbols: 2, heading: 1.5, body: 1 };

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** A corpus with a Zipf-like vocabulary: a few terms in most rows, many rare ones. */
function buildIndex(seed: number, rows: number) {
  const next = random(seed);
  const termIds = new Map<string, number>();
  const index = new LexicalIndex(weights, termIds, 0); // prune every query, however small
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
});
