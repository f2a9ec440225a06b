import { describe, expect, it } from 'vitest';
import { sortTerms } from '../../store/segment-file.js';
import { Lexicon } from './lexicon.js';

// Terms whose UTF-16 order differs from their UTF-8 byte order: a surrogate pair (U+1F600)
// sorts before U+FF21 in code units and after it in bytes.
const TERMS = ['zeta', 'alpha', 'ａ', 'Ａbc', '😀', '😀x', 'ﬀ', '中文', 'é', 'e', '', '\uE000', 'alphabet', '𝔘nicode'];

describe('lexicon table', () => {
  it('sorts terms in UTF-8 byte order, with or without characters above U+D7FF', () => {
    // With the wide characters the bytes are compared; without them strings are (ASCII-only terms: one byte each).
    for (const terms of [TERMS, TERMS.filter((term) => !/[\uD800-\uFFFF]/.test(term)), TERMS.filter((term) => /^[a-z]*$/.test(term))]) {
      const table = sortTerms(terms.map((term, id) => [term, id] as const));
      const read = terms.map((_, index) => table.bytes.subarray(table.offsets[index], table.offsets[index + 1]));
      const expected = terms.map((term) => Buffer.from(term, 'utf8')).sort(Buffer.compare);
      expect(read.map((bytes) => bytes.toString('utf8'))).toEqual(expected.map((bytes) => bytes.toString('utf8')));
      // Each id still belongs to its term.
      for (const [index, id] of table.ids.entries()) expect(read[index]?.toString('utf8')).toBe(terms[id]);
      const lexicon = new Lexicon();
      lexicon.adopt(table);
      for (const [id, term] of terms.entries()) expect(lexicon.get(term)).toBe(id);
      expect(lexicon.get('absent')).toBeUndefined();
    }
  });
});
