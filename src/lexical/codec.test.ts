import { describe, expect, it } from 'vitest';
import { countTerms, decodeTerms, encodeTerms } from './codec.js';

describe('lexical codec', () => {
  it('round-trips term frequencies per field, with large ids and counts', () => {
    const stats = countTerms({
      path: ['src', 'config'],
      symbols: ['parseconfig', 'pars', 'config'],
      heading: [],
      body: [...Array.from({ length: 300 }, () => 'config'), 'pars', 'valu'],
    });
    const ids = new Map([
      ['src', 5],
      ['config', 1],
      ['parseconfig', 300_000_000],
      ['pars', 128],
      ['valu', 16_384],
    ]);
    const decoded = decodeTerms(encodeTerms(stats, (term) => ids.get(term) as number));
    expect(decoded.fieldLengths).toEqual([2, 3, 0, 302]);
    expect([...decoded.termIds]).toEqual([1, 5, 128, 16_384, 300_000_000]);
    const byId = (id: number) => [...decoded.frequencies.slice(decoded.termIds.indexOf(id) * 4, decoded.termIds.indexOf(id) * 4 + 4)];
    expect(byId(1)).toEqual([1, 1, 0, 300]);
    expect(byId(128)).toEqual([0, 1, 0, 1]);
    expect(byId(300_000_000)).toEqual([0, 1, 0, 0]);
  });

  it('refuses truncated data', () => {
    const blob = encodeTerms(countTerms({ path: [], symbols: [], heading: [], body: ['a', 'b'] }), (term) => (term === 'a' ? 1 : 2));
    expect(() => decodeTerms(blob.slice(0, blob.length - 1))).toThrow(/Truncated/);
  });
});
