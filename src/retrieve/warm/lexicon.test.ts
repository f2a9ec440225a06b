import { describe, expect, it } from 'vitest';
import { SegmentError, sortTerms, termTableOf } from '../../store/segment-file.js';
import { blockTermTable, LEXICON_BLOCK, lexiconBlocks } from '../../store/segment-tables.js';
import { Lexicon } from './lexicon.js';

// Terms whose UTF-16 order differs from their UTF-8 byte order: a surrogate pair (U+1F600)
// sorts before U+FF21 in code units and after it in bytes.
const TERMS = ['zeta', 'alpha', 'ａ', 'Ａbc', '😀', '😀x', 'ﬀ', '中文', 'é', 'e', '', '\uE000', 'alphabet', '𝔘nicode'];

describe('lexicon table', () => {
  it('sorts terms in UTF-8 byte order, with or without characters above U+D7FF', () => {
    // With the wide characters, by keys moved into byte order; without them, as they are (ASCII-only terms: one byte each).
    for (const terms of [TERMS, TERMS.filter((term) => !/[\uD800-\uFFFF]/.test(term)), TERMS.filter((term) => /^[a-z]*$/.test(term))]) {
      const table = sortTerms(terms.map((term, id) => [term, id] as const));
      const read = terms.map((_, index) => table.bytes.subarray(table.offsets[index], table.offsets[index + 1]));
      const expected = terms.map((term) => Buffer.from(term, 'utf8')).sort(Buffer.compare);
      expect(read.map((bytes) => bytes.toString('utf8'))).toEqual(expected.map((bytes) => bytes.toString('utf8')));
      // Each id still belongs to its term.
      for (const [index, id] of table.ids.entries()) expect(read[index]?.toString('utf8')).toBe(terms[id]);
      const lexicon = new Lexicon();
      lexicon.adopt(termTableOf(table));
      for (const [id, term] of terms.entries()) expect(lexicon.get(term)).toBe(id);
      expect(lexicon.get('absent')).toBeUndefined();
    }
  });

  it('sorts random terms mixing ASCII, U+0800–U+D7FF, U+E000–U+FFFF and characters beyond the BMP in UTF-8 byte order', () => {
    let state = 7;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pieces = ['a', 'z', '\u00e9', '\u4e2d', '\ud7ff', '\ue000', '\uff21', '\uffff', '\ud83d\ude00', '\ud800\udc00', '\udbff\udfff'];
    const terms = [...new Set(Array.from({ length: 3_000 }, () => Array.from({ length: 1 + Math.floor(next() * 4) }, () => pieces[Math.floor(next() * pieces.length)]).join('')))];
    const table = sortTerms(terms.map((term, id) => [term, id] as const));
    const read = terms.map((_, index) => table.bytes.subarray(table.offsets[index], table.offsets[index + 1]).toString('utf8'));
    expect(read).toEqual(
      terms
        .map((term) => Buffer.from(term, 'utf8'))
        .sort(Buffer.compare)
        .map((bytes) => bytes.toString('utf8')),
    );
    for (const [index, id] of table.ids.entries()) expect(read[index]).toBe(terms[id]);
  });

  it('reads a lexicon a block at a time: every term found in its block, absent ones not, damage refused', () => {
    // Ids from 1 (as the store's); enough terms for several blocks, with the awkward ones among them.
    const words = [...TERMS, ...Array.from({ length: 5 * LEXICON_BLOCK + 7 }, (_, index) => `term${(index * 7919) % 10007}x`)];
    const entries = [...new Set(words)].map((term, index) => [term, index + 1] as const);
    const blocks = lexiconBlocks(sortTerms(entries));
    let reads = 0;
    const read = (position: number, length: number) => {
      reads++;
      return Uint8Array.from(blocks.body.subarray(position - 100, position - 100 + length)); // own buffer, as a file read gives
    };
    const table = blockTermTable(read, { offset: 100 }, blocks, entries.length, entries.length);
    const lexicon = new Lexicon();
    lexicon.adopt(table);
    expect(lexicon.get('term7919x')).toBe(entries.find(([term]) => term === 'term7919x')?.[1]);
    expect(reads).toBe(1); // one block read for one lookup
    for (const [term, id] of entries) expect(lexicon.get(term)).toBe(id);
    for (const absent of ['absent', 'term', 'zzzz', '\u0000', '😀y', 'term7919', 'term7919xx']) expect(lexicon.get(absent)).toBeUndefined();
    expect(reads).toBe(Math.ceil(entries.length / LEXICON_BLOCK)); // each block read once
    expect(new Map(lexicon.entries())).toEqual(new Map(entries));
    // A damaged block fails its checksum; ids beyond the store's last fail the bound.
    const damaged = { ...blocks, body: Uint8Array.from(blocks.body) };
    const at = (damaged.starts[1] as number) + 3;
    damaged.body[at] = (damaged.body[at] as number) ^ 0xff;
    const broken = blockTermTable((position, length) => Uint8Array.from(damaged.body.subarray(position, position + length)), { offset: 0 }, damaged, entries.length, entries.length);
    expect(() => broken.entries()).toThrow(SegmentError);
    const bounded = blockTermTable((position, length) => Uint8Array.from(blocks.body.subarray(position, position + length)), { offset: 0 }, blocks, entries.length, 5);
    expect(() => bounded.entries()).toThrow(/lexicon ids/);
  });
});
