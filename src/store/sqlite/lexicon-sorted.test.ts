import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lexicalFieldsFrom } from '../../lexical/fields.js';
import { sortTerms } from '../segment-format.js';
import { catalogEntry, chunk } from '../test-support/store-fixtures.js';
import { openSqliteStore } from './sqlite-store.js';

describe('readLexiconSorted', () => {
  it("lists the lexicon packed in a segment's order, the same as sorting its pairs, for terms from every part of Unicode", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-lexicon-sorted-'));
    const store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
    try {
      // Surrogate pairs and characters from U+E000 up are where UTF-16 and UTF-8 orders differ.
      const body = ['b', 'a', 'ab', 'Z', 'é', 'east', '東京', '\uE000', 'a\uE000', '\uFFFD', '𠀀', 'a𠀀', '𝒳', 'ж', '0', 'zz'];
      const fields = lexicalFieldsFrom({ path: ['wide'], symbols: [], heading: [], body });
      await store.writeFile({ entry: catalogEntry('wide.txt'), chunks: [chunk('wide.txt', 1, body.join(' '), fields)] });
      await store.writeFile({ entry: catalogEntry('more.txt'), chunks: [chunk('more.txt', 1, 'aa ba ca 中文 ÿ')] });
      const pairs = await store.readLexicon(0);
      const expected = sortTerms(pairs.map(([id, term]) => [term, id] as const));
      const packed = await store.readLexiconSorted?.();
      expect(packed).toBeDefined();
      expect([...(packed?.ids ?? [])]).toEqual([...expected.ids]);
      expect([...(packed?.offsets ?? [])]).toEqual([...expected.offsets]);
      expect(Buffer.from(packed?.bytes ?? []).equals(expected.bytes)).toBe(true);
      expect(packed?.ids.length).toBeGreaterThan(body.length);
    } finally {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
