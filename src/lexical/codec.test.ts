import { describe, expect, it } from 'vitest';
import { countTerms, decodeTerms, encodeTerms, termAt, TermTable } from './codec.js';

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
    const decoded = decodeTerms(encodeTerms(stats, (ref) => ids.get(stats.table.terms[ref] as string) as number));
    expect(decoded.fieldLengths).toEqual([2, 3, 0, 302]);
    expect([...decoded.termIds]).toEqual([1, 5, 128, 16_384, 300_000_000]);
    const byId = (id: number) => [...decoded.frequencies.slice(decoded.termIds.indexOf(id) * 4, decoded.termIds.indexOf(id) * 4 + 4)];
    expect(byId(1)).toEqual([1, 1, 0, 300]);
    expect(byId(128)).toEqual([0, 1, 0, 1]);
    expect(byId(300_000_000)).toEqual([0, 1, 0, 0]);
  });

  it('refuses truncated data', () => {
    const stats = countTerms({ path: [], symbols: [], heading: [], body: ['a', 'b'] });
    const blob = encodeTerms(stats, (ref) => (stats.table.terms[ref] === 'a' ? 1 : 2));
    expect(() => decodeTerms(blob.slice(0, blob.length - 1))).toThrow(/Truncated/);
  });

  it('counts many chunks into one run-wide list: each term indexed once, each chunk its own counts', () => {
    const table = new TermTable();
    const first = table.count({ path: ['src'], symbols: [], heading: [], body: ['parse', 'config', 'parse'] });
    const second = table.count({ path: [], symbols: ['config'], heading: [], body: ['valu', 'config', 'config'] });
    expect(table.terms).toEqual(['src', 'parse', 'config', 'valu']);
    const counted = (stats: ReturnType<TermTable['count']>) => Object.fromEntries(Array.from(stats.refs, (_, index) => [termAt(stats, index), [...stats.counts.subarray(index * 4, index * 4 + 4)]]));
    expect(counted(first)).toEqual({ src: [1, 0, 0, 0], parse: [0, 0, 0, 2], config: [0, 0, 0, 1] });
    expect(counted(second)).toEqual({ config: [0, 1, 0, 2], valu: [0, 0, 0, 1] });
    expect(second.fieldLengths).toEqual([0, 1, 0, 3]);
    // What another thread's copy lacks, once each, in index order.
    expect(table.drain()).toEqual(['src', 'parse', 'config', 'valu']);
    table.count({ path: [], symbols: [], heading: [], body: ['parse', 'new'] });
    expect(table.drain()).toEqual(['new']);
    expect(table.drain()).toEqual([]);
  });

  it('grows past its scratch size and keeps each chunk separate', () => {
    const table = new TermTable();
    const words = Array.from({ length: 5000 }, (_, index) => `w${index}`);
    const stats = table.count({ path: [], symbols: [], heading: [], body: [...words, ...words] });
    expect(stats.refs.length).toBe(5000);
    expect(stats.counts.every((count, at) => count === (at % 4 === 3 ? 2 : 0))).toBe(true);
    const again = table.count({ path: [], symbols: [], heading: [], body: ['w4999'] });
    expect([...again.refs]).toEqual([4999]);
    expect([...again.counts]).toEqual([0, 0, 0, 1]);
  });
});
