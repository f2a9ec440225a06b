import { describe, expect, it } from 'vitest';
import { compileFilter } from './filter-match.js';
import { MetaSlots } from '../retrieve/warm/meta-slots.js';
import { SegmentError, sortTerms } from './segment-format.js';
import { blockMetaTable, blockTermTable, DECODED_METAS, LEXICON_BLOCK, lexiconBlocks, PATH_BLOCK, pathBlockCrc } from './segment-tables.js';

const utf8 = new TextEncoder();

/** A section held in memory, read as a segment reader reads it (a copy per read), counting reads. */
function section(body: Uint8Array): { read: (position: number, length: number) => Uint8Array; reads: () => number } {
  let reads = 0;
  return {
    read: (position, length) => {
      reads++;
      return Uint8Array.from(body.subarray(position, position + length));
    },
    reads: () => reads,
  };
}

function pathTable(paths: readonly string[], languages: readonly string[]) {
  const bytes = utf8.encode(paths.join(''));
  const ends = new Uint32Array(paths.length);
  let end = 0;
  paths.forEach((path, index) => (ends[index] = end += utf8.encode(path).length));
  const source = section(bytes);
  const languageIds = Uint32Array.from(paths, (_, index) => index % languages.length);
  return { table: blockMetaTable(source.read, { offset: 0 }, ends, pathBlockCrc(bytes, ends), languageIds, languages), source };
}

describe('segment tables', () => {
  it('the lexicon in blocks finds every term and no other, reading one block per new block looked up', () => {
    const entries = Array.from({ length: 5 * LEXICON_BLOCK + 7 }, (_, index) => [`term${String(index).padStart(4, '0')}`, index + 1] as const);
    const blocks = lexiconBlocks(sortTerms(entries));
    const source = section(blocks.body);
    const table = blockTermTable(source.read, { offset: 0 }, blocks, entries.length, entries.length);
    for (const [term, id] of entries) expect(table.find(Buffer.from(term))).toBe(id);
    expect(source.reads()).toBe(blocks.headEnds.length);
    for (const missing of ['', 'a', 'term', 'term00005', 'term9999', 'zzz']) expect(table.find(Buffer.from(missing))).toBeUndefined();
    expect(table.entries()).toEqual(entries.map(([term, id]) => [term, id]));
  });

  it('a block whose head is not its first term (a checksum-valid but wrong file) is refused, not searched', () => {
    const entries = Array.from({ length: 3 * LEXICON_BLOCK }, (_, index) => [`w${String(index).padStart(4, '0')}`, index + 1] as const);
    const blocks = lexiconBlocks(sortTerms(entries));
    // Block 1's head says it starts one term later than it does: the head array is eager (its CRC is the header's, rewritten with it).
    const wrong = Buffer.from(blocks.heads);
    const start = blocks.headEnds[0] as number;
    wrong.write(`w${String(LEXICON_BLOCK + 1).padStart(4, '0')}`, start, 'latin1');
    const table = blockTermTable(section(blocks.body).read, { offset: 0 }, { ...blocks, heads: wrong }, entries.length, entries.length);
    expect(table.find(Buffer.from(entries[0]?.[0] as string))).toBe(1); // block 0 is fine
    expect(() => table.find(Buffer.from(entries[LEXICON_BLOCK + 3]?.[0] as string))).toThrow(SegmentError);
    expect(() => table.find(Buffer.from(entries[LEXICON_BLOCK + 3]?.[0] as string))).toThrow(/lexicon block head/);
  });

  it('a filter on language alone decodes no path; a path filter reads the blocks it needs', () => {
    const paths = Array.from({ length: 4 * PATH_BLOCK }, (_, index) => `src/${index % 2 ? 'a' : 'ü'}/file${index}.ts`);
    const { table, source } = pathTable(paths, ['typescript', 'python']);
    const slots = new MetaSlots();
    slots.restore(
      table,
      Uint32Array.from(paths, (_, index) => index),
    );
    const byLanguage = compileFilter({ languages: ['python'] });
    const byPath = compileFilter({ pathPrefixes: ['src/a/'] });
    if (!byLanguage || !byPath) throw new Error('no filter');
    expect(byLanguage.pathFree).toBe(true);
    expect(byPath.pathFree).toBeUndefined();
    const python = paths.map((_, slot) => slots.accepts(slot, byLanguage));
    expect(python).toEqual(paths.map((_, index) => index % 2 === 1));
    expect(source.reads()).toBe(0);
    expect(paths.map((_, slot) => slots.accepts(slot, byPath))).toEqual(paths.map((path) => path.startsWith('src/a/')));
    expect(source.reads()).toBe(4);
    // A cleared slot passes no filter, with or without its path.
    slots.clear(3);
    expect(slots.accepts(3, byLanguage)).toBe(false);
    expect(slots.accepts(3, byPath)).toBe(false);
  });

  it('decoded paths are kept for repeated lookups, up to a bound: a long-lived process does not keep an object per row', () => {
    const paths = Array.from({ length: DECODED_METAS + 10 }, (_, index) => `p${index}`);
    const { table } = pathTable(paths, ['text']);
    const first = table.get(0);
    expect(table.get(0)).toBe(first);
    for (let index = 1; index < DECODED_METAS; index++) table.get(index);
    expect(table.get(0)).toBe(first); // still cached: the cache is full, not past its bound
    table.get(DECODED_METAS); // one more starts the cache over
    const again = table.get(0);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(table.get(DECODED_METAS + 9)).toEqual({ path: `p${DECODED_METAS + 9}`, language: 'text' });
  });
});
