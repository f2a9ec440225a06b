import { describe, expect, it } from 'vitest';
import type { SegmentRowMeta } from './segment-format.js';
import { MetaPacker, packMetas } from './segment-metas.js';

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

describe('row metadata packed as a segment holds it', () => {
  const metas: SegmentRowMeta[] = [
    { path: 'src/a.ts', language: 'typescript' },
    { path: 'docs/ünïcode.md', language: 'markdown' },
    { path: 'src/b.py', language: 'python' },
    { path: 'src/a.ts', language: 'javascript' },
    { path: 'notes/😀.txt', language: 'text' },
  ];

  it('packs objects into byte ends and languages numbered by first use', () => {
    const packed = packMetas(metas);
    expect(packed.languages).toEqual(['typescript', 'markdown', 'python', 'javascript', 'text']);
    expect([...packed.languageIds]).toEqual([0, 1, 2, 3, 4]);
    let start = 0;
    metas.forEach((meta, index) => {
      const end = packed.ends[index] as number;
      expect(Buffer.from(packed.paths).toString('utf8', start, end)).toBe(meta.path);
      start = end;
    });
    expect(packed.paths.length).toBe(metas.reduce((bytes, meta) => bytes + Buffer.byteLength(meta.path), 0));
  });

  it('numbers each path and language once, in order of first use, and packs what packMetas packs', () => {
    const packer = new MetaPacker(metas.length, 200);
    const seen = [...metas, metas[0], metas[3], metas[1], metas[4]] as SegmentRowMeta[];
    const ids = seen.map((meta) => packer.idOf(utf8(meta.path), meta.language));
    expect(ids).toEqual([0, 1, 2, 3, 4, 0, 3, 1, 4]);
    const packed = packer.packed();
    const expected = packMetas(metas);
    expect(Buffer.from(packed.paths).equals(Buffer.from(expected.paths))).toBe(true);
    expect([...packed.ends]).toEqual([...expected.ends]);
    expect([...packed.languageIds]).toEqual([...expected.languageIds]);
    expect(packed.languages).toEqual(expected.languages);
  });

  it('tells paths apart that share a hash slot or a prefix, over many entries', () => {
    const count = 5_000;
    const packer = new MetaPacker(count, count * 20);
    for (let round = 0; round < 2; round++) for (let index = 0; index < count; index++) expect(packer.idOf(utf8(`p/${index}`), index % 3 === 0 ? 'a' : 'b')).toBe(index);
    expect(packer.packed().ends.length).toBe(count);
  });

  it('refuses more than it was sized for instead of writing past its arrays', () => {
    const packer = new MetaPacker(1, 100);
    packer.idOf(utf8('one'), 'text');
    expect(() => packer.idOf(utf8('two'), 'text')).toThrow(/sized for/);
    const narrow = new MetaPacker(4, 3);
    expect(() => narrow.idOf(utf8('four'), 'text')).toThrow(/sized for/);
  });
});
