import { expect } from 'vitest';
import { queryTerms } from '../../../lexical/tokenize.js';
import { pick, random } from '../test-words.js';
import type { WarmIndex } from '../warm-index.js';

type Answering = Pick<WarmIndex, 'searchLexical' | 'searchVectors' | 'termStatistics' | 'languages' | 'size'>;

/** The same 30 random queries against two indexes: lexical and vector top 15, row ids and scores, with and without a filter; term statistics, languages and sizes. */
export function expectSameAnswers(a: Answering, b: Answering, seed: number, dimensions: number): void {
  const next = random(seed);
  let answered = 0;
  for (let query = 0; query < 30; query++) {
    const terms = queryTerms(Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(next)).join(' '));
    const vector = Float32Array.from({ length: dimensions }, () => next() - 0.5);
    for (const filter of [undefined, { pathPrefixes: ['src/a/'] }]) {
      const lexical = a.searchLexical(terms, 15, filter);
      expect(lexical).toEqual(b.searchLexical(terms, 15, filter));
      expect(a.searchVectors(vector, 15, filter)).toEqual(b.searchVectors(vector, 15, filter));
      answered += lexical.length;
    }
    expect(a.termStatistics(terms)).toEqual(b.termStatistics(terms));
  }
  expect(answered).toBeGreaterThan(0);
  expect(a.languages()).toEqual(b.languages());
  expect(a.size).toBe(b.size);
}
