import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WarmIndex } from '../../retrieve/warm/warm-index.js';
import { ranksLexically, type LexicalQuery, type ScoredRow, type Store, type TermStatistics } from '../spec.js';

export interface StoreHarness {
  store: Store;
  cleanup(): Promise<void>;
}

export { catalogEntry, chunk } from './store-fixtures.js';
import { catalogEntry, chunk } from './store-fixtures.js';

const weights = { path: 1.5, symbols: 2, heading: 1.5, body: 1 };

/**
 * A store's lexical answers as the engine gets them: from the store itself when it ranks
 * lexically (Postgres), else from loci's index built from the store's term rows (SQLite).
 */
async function withIndex<T>(store: Store, read: (index: WarmIndex) => T): Promise<T> {
  const index = new WarmIndex(store, { weights, embedderId: 'none', dimensions: 0 });
  try {
    await index.refresh();
    return read(index);
  } finally {
    index.close();
  }
}

function searchLexical(store: Store, query: LexicalQuery): Promise<ScoredRow[]> {
  if (ranksLexically(store)) return store.searchLexical(query);
  return withIndex(store, (index) => index.searchLexical(query.terms, query.limit, query.filter));
}

function termStatistics(store: Store, terms: string[]): Promise<TermStatistics> {
  if (ranksLexically(store)) return store.termStatistics(terms);
  return withIndex(store, (index) => index.termStatistics(terms));
}

/**
 * The contract every store adapter passes unchanged (Hono's runTest pattern). Each test
 * gets a fresh, empty store from `open`.
 */
export function describeStoreContract(name: string, open: () => Promise<StoreHarness>): void {
  describe(`store contract: ${name}`, () => {
    let harness: StoreHarness;
    let store: Store;
    beforeEach(async () => {
      harness = await open();
      store = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('starts empty, lexical-only', async () => {
      const meta = await store.getMeta();
      expect(meta.embedderId).toBe('none');
      expect(meta.schemaVersion).toBeGreaterThanOrEqual(1);
      expect(await store.listCatalog()).toEqual([]);
      expect((await store.counts()).chunks).toBe(0);
    });

    it('writes a file with its chunks and reads them back', async () => {
      await store.writeFile({
        entry: catalogEntry('src/config.ts'),
        chunks: [chunk('src/config.ts', 1, 'export function parseConfig(text) {\n  return JSON.parse(text);\n}', { symbol: 'parseConfig', symbols: ['parseConfig'] })],
      });
      const entry = await store.getCatalogEntry('src/config.ts');
      expect(entry?.chunkCount).toBe(1);
      expect(entry?.contentHash).toBe('hash-of-src/config.ts');
      const rows = await searchLexical(store, { terms: ['parseconfig'], weights, limit: 10 });
      expect(rows).toHaveLength(1);
      const [record] = await store.getChunks(rows.map((row) => row.rowId));
      expect(record).toMatchObject({ path: 'src/config.ts', startLine: 1, endLine: 3, symbol: 'parseConfig', language: 'typescript', kind: 'code' });
      expect(record?.symbols).toEqual(['parseConfig']);
      await store.writeFile({
        entry: catalogEntry('src/b.ts'),
        chunks: [chunk('src/b.ts', 9, 'function two() {}', { symbol: 'two' }), chunk('src/b.ts', 1, 'function one() {}', { symbol: 'one' }), chunk('src/b.ts', 20, 'plain text')],
      });
      expect(await store.listOutline()).toEqual([
        {
          path: 'src/b.ts',
          symbols: [
            { name: 'one', line: 1 },
            { name: 'two', line: 9 },
          ],
        },
        { path: 'src/config.ts', symbols: [{ name: 'parseConfig', line: 1 }] },
      ]);
    });

    it('rewriting a file replaces its chunks: no duplicates, no orphans', async () => {
      await store.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'alpha beta'), chunk('a.ts', 5, 'gamma')] });
      await store.writeFile({ entry: catalogEntry('a.ts', { contentHash: 'v2' }), chunks: [chunk('a.ts', 1, 'delta')] });
      expect(await searchLexical(store, { terms: ['alpha', 'gamma'], weights, limit: 10 })).toEqual([]);
      expect(await searchLexical(store, { terms: ['delta'], weights, limit: 10 })).toHaveLength(1);
      expect((await store.counts()).chunks).toBe(1);
      expect((await store.getCatalogEntry('a.ts'))?.contentHash).toBe('v2');
    });

    it('scans index rows in pages by row id, and counts live rows', async () => {
      await store.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'alpha'), chunk('a.ts', 3, 'beta'), chunk('a.ts', 5, 'gamma')] });
      await store.writeFile({ entry: catalogEntry('b.ts'), chunks: [chunk('b.ts', 1, 'delta'), chunk('b.ts', 3, 'epsilon')] });
      const all = await store.scanIndexRows({});
      expect(all).toHaveLength(5);
      const first = await store.scanIndexRows({ limit: 2 });
      const second = await store.scanIndexRows({ afterRowId: (first.at(-1) as { rowId: number }).rowId, limit: 2 });
      const third = await store.scanIndexRows({ afterRowId: (second.at(-1) as { rowId: number }).rowId, limit: 2 });
      expect([...first, ...second, ...third].map((row) => row.rowId)).toEqual(all.map((row) => row.rowId));
      expect(third).toHaveLength(1);
      expect(await store.countChunks()).toBe(5);
      const counts = await store.counts();
      expect(await store.countRows()).toEqual({ files: counts.files, chunks: counts.chunks });
      expect(counts).toMatchObject({ files: 2, chunks: 5 });
      const deletionsBefore = await store.chunkDeletions?.();
      await store.deleteFile('a.ts');
      expect(await store.countChunks()).toBe(2);
      expect(await store.countRows()).toEqual({ files: 1, chunks: 2 });
      expect([...(await store.liveRowIds())]).toEqual(all.slice(3).map((row) => row.rowId));
      // A store that counts deletions counts these three, and nothing for writes that delete nothing.
      if (deletionsBefore !== undefined) {
        expect(await store.chunkDeletions?.()).toBe(deletionsBefore + 3);
        await store.writeFile({ entry: catalogEntry('c.ts'), chunks: [chunk('c.ts', 1, 'zeta')] });
        expect(await store.chunkDeletions?.()).toBe(deletionsBefore + 3);
        await store.writeFile({ entry: catalogEntry('b.ts', { contentHash: 'v2' }), chunks: [chunk('b.ts', 1, 'eta')] });
        expect(await store.chunkDeletions?.()).toBe(deletionsBefore + 5);
        // A store that logs deletions names each deleted row, in order; a span it does not hold whole is unknown.
        if (store.deletedRowIds) {
          const removedB = all.slice(3).map((row) => row.rowId);
          expect([...((await store.deletedRowIds(deletionsBefore, deletionsBefore + 3)) ?? [])]).toEqual(all.slice(0, 3).map((row) => row.rowId));
          expect([...((await store.deletedRowIds(deletionsBefore + 3, deletionsBefore + 5)) ?? [])]).toEqual(removedB);
          expect(await store.deletedRowIds(deletionsBefore, deletionsBefore + 6)).toBeUndefined();
          expect([...((await store.deletedRowIds(deletionsBefore + 5, deletionsBefore + 5)) ?? [-1])]).toEqual([]);
        }
      }
    });

    it('deletes a file with its chunks and lexical rows', async () => {
      await store.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'alpha')] });
      await store.writeFile({ entry: catalogEntry('b.ts'), chunks: [chunk('b.ts', 1, 'alpha')] });
      await store.deleteFile('a.ts');
      const rows = await searchLexical(store, { terms: ['alpha'], weights, limit: 10 });
      const records = await store.getChunks(rows.map((row) => row.rowId));
      expect(records.map((record) => record.path)).toEqual(['b.ts']);
      expect(await store.getCatalogEntry('a.ts')).toBeUndefined();
      expect((await store.counts()).files).toBe(1);
    });

    it('keeps the old version when a write fails midway', async () => {
      await store.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'original text')] });
      const broken = chunk('a.ts', 1, 'replacement');
      (broken as unknown as { text: unknown }).text = null; // violates NOT NULL after the first insert
      await expect(store.writeFile({ entry: catalogEntry('a.ts', { contentHash: 'v2' }), chunks: [chunk('a.ts', 1, 'first new'), broken] })).rejects.toThrow();
      expect((await store.getCatalogEntry('a.ts'))?.contentHash).toBe('hash-of-a.ts');
      const rows = await searchLexical(store, { terms: ['origin', 'first'], weights, limit: 10 });
      const records = await store.getChunks(rows.map((row) => row.rowId));
      expect(records.map((record) => record.text)).toEqual(['original text']);
    });

    it('counts chunks per term for IDF and lists the indexed languages', async () => {
      expect(await termStatistics(store, ['alpha'])).toEqual({ chunks: 0, frequencies: new Map([['alpha', 0]]) });
      await store.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'alpha beta'), chunk('a.ts', 5, 'alpha')] });
      await store.writeFile({ entry: catalogEntry('b.py'), chunks: [chunk('b.py', 1, 'beta "quoted" gamma', { symbol: 'alphaHelper' })] });
      const statistics = await termStatistics(store, ['alpha', 'beta', 'alphahelper', 'missing', '"', 'quot']);
      expect(statistics.chunks).toBe(3);
      expect(Object.fromEntries(statistics.frequencies)).toEqual({ alpha: 3, beta: 2, alphahelper: 1, missing: 0, '"': 0, quot: 1 });
      expect(await store.languages()).toEqual(
        new Map([
          ['python', 1],
          ['typescript', 2],
        ]),
      );
      await store.deleteFile('a.ts');
      expect((await termStatistics(store, ['alpha'])).frequencies.get('alpha')).toBe(1);
      expect(await store.languages()).toEqual(new Map([['python', 1]]));
    });

    it('weights fields: a symbol-name match outranks a body mention', async () => {
      await store.writeFile({ entry: catalogEntry('body.ts'), chunks: [chunk('body.ts', 1, 'we call render here and there in the text body of a longer chunk')] });
      await store.writeFile({ entry: catalogEntry('symbol.ts'), chunks: [chunk('symbol.ts', 1, 'function render() { return 1 }', { symbol: 'render' })] });
      const rows = await searchLexical(store, { terms: ['render'], weights, limit: 10 });
      const records = await store.getChunks(rows.map((row) => row.rowId));
      expect(records[0]?.path).toBe('symbol.ts');
      expect(rows[0]!.score).toBeGreaterThan(rows[1]!.score);
    });

    it('applies filters before ranking, not after', async () => {
      // 30 strong matches outside src/, one weak match inside: limit 5 must still find it.
      for (let index = 0; index < 30; index++) {
        await store.writeFile({ entry: catalogEntry(`other/file${index}.ts`), chunks: [chunk(`other/file${index}.ts`, 1, 'token token token')] });
      }
      await store.writeFile({ entry: catalogEntry('src/deep/inside.py'), chunks: [chunk('src/deep/inside.py', 1, 'token and many other words to dilute the score a lot more')] });
      const byPrefix = await searchLexical(store, { terms: ['token'], weights, limit: 5, filter: { pathPrefixes: ['src/'] } });
      const byGlob = await searchLexical(store, { terms: ['token'], weights, limit: 5, filter: { pathGlobs: ['src/**/*.py'] } });
      const byLanguage = await searchLexical(store, { terms: ['token'], weights, limit: 5, filter: { languages: ['python'] } });
      for (const rows of [byPrefix, byGlob, byLanguage]) {
        const records = await store.getChunks(rows.map((row) => row.rowId));
        expect(records.map((record) => record.path)).toEqual(['src/deep/inside.py']);
      }
      const none = await searchLexical(store, { terms: ['token'], weights, limit: 5, filter: { pathGlobs: ['nothing/**'] } });
      expect(none).toEqual([]);
    });

    it('never lets query terms reach the query syntax', async () => {
      await store.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'near and or not')] });
      for (const term of ['"', '""', 'NEAR(a b)', 'a*', '(', ')', 'AND', 'OR', 'NOT', 'path:x', '^', '-x', "'; DROP TABLE chunks; --", '\u0000', '{}', 'col : x']) {
        await expect(searchLexical(store, { terms: [term], weights, limit: 5 })).resolves.toBeInstanceOf(Array);
      }
      expect((await store.counts()).chunks).toBe(1);
    });

    it('searches vectors by cosine, per embedder, with filters', async () => {
      await store.setEmbedder('test:model@3', 3);
      const vector = (values: number[]) => Float32Array.from(values);
      await store.writeFile({
        entry: catalogEntry('x.ts', { embedder: 'test:model@3' }),
        chunks: [chunk('x.ts', 1, 'x axis', { vector: vector([1, 0, 0]) }), chunk('x.ts', 3, 'mostly x', { vector: vector([0.9, 0.1, 0]) })],
      });
      await store.writeFile({ entry: catalogEntry('y.py', { embedder: 'test:model@3' }), chunks: [chunk('y.py', 1, 'y axis', { vector: vector([0, 1, 0]) })] });
      const rows = await store.searchVectors({ embedderId: 'test:model@3', vector: vector([2, 0, 0]), limit: 3 });
      const records = await store.getChunks(rows.map((row) => row.rowId));
      expect(records.map((record) => record.text)).toEqual(['x axis', 'mostly x', 'y axis']);
      expect(rows[0]!.score).toBeCloseTo(1, 5);
      expect(rows[2]!.score).toBeCloseTo(0, 5);
      const filtered = await store.searchVectors({ embedderId: 'test:model@3', vector: vector([1, 0, 0]), limit: 3, filter: { languages: ['python'] } });
      expect(filtered).toHaveLength(1);
      expect(await store.searchVectors({ embedderId: 'other:model@3', vector: vector([1, 0, 0]), limit: 3 })).toEqual([]);
      expect((await store.counts()).vectors).toBe(3);
      await store.deleteFile('x.ts');
      const afterDelete = await store.searchVectors({ embedderId: 'test:model@3', vector: vector([1, 0, 0]), limit: 3 });
      expect(afterDelete).toHaveLength(1);
    });

    it('attaches vectors to written chunks without rewriting them (progressive phase 2)', async () => {
      await store.setEmbedder('test:model@3', 3);
      await store.writeFile({ entry: catalogEntry('a.ts', { embedder: 'pending' }), chunks: [chunk('a.ts', 1, 'alpha'), chunk('a.ts', 5, 'beta')] });
      await store.writeFile({ entry: catalogEntry('b.py', { embedder: 'pending' }), chunks: [chunk('b.py', 1, 'gamma')] });
      const listed = await store.listChunks(['b.py', 'a.ts', 'missing.ts']);
      expect(listed.map((record) => `${record.path}:${record.startLine}:${record.text}`)).toEqual(['a.ts:1:alpha', 'a.ts:5:beta', 'b.py:1:gamma']);
      const rowIds = listed.map((record) => record.rowId);
      expect(await store.searchVectors({ embedderId: 'test:model@3', vector: Float32Array.from([1, 0, 0]), limit: 5 })).toEqual([]);
      const before = await store.changeToken();
      await store.putCachedVectors('test:model@3', new Map(listed.map((record, index) => [record.contentHash, Float32Array.from([index === 0 ? 1 : 0, 1, 0])])));
      await store.setFileEmbedder(['a.ts', 'b.py'], 'test:model@3');
      expect(await store.changeToken()).not.toBe(before);
      expect([...(await store.getCatalogEntries(['a.ts', 'b.py'])).values()].map((entry) => entry.embedder)).toEqual(['test:model@3', 'test:model@3']);
      // The same rows, now found by vector.
      expect((await store.listChunks(['a.ts', 'b.py'])).map((record) => record.rowId)).toEqual(rowIds);
      const found = await store.searchVectors({ embedderId: 'test:model@3', vector: Float32Array.from([1, 0, 0]), limit: 5 });
      expect(found[0]!.rowId).toBe(rowIds[0]);
      expect(found).toHaveLength(3);
      expect(await store.listChunks([])).toEqual([]);
    });

    it('caches embeddings by (embedder, content hash)', async () => {
      await store.putCachedVectors('e1', new Map([['h1', Float32Array.from([1, 2])]]));
      const found = await store.getCachedVectors('e1', ['h1', 'h2']);
      expect([...found.keys()]).toEqual(['h1']);
      expect([...found.get('h1')!]).toEqual([1, 2]);
      expect((await store.getCachedVectors('e2', ['h1'])).size).toBe(0);
    });

    it('collects unreferenced cached vectors, keeping the newest ones it is told to keep', async () => {
      await store.setEmbedder('test:model@3', 3);
      const vector = (values: number[]) => Float32Array.from(values);
      const live = chunk('live.ts', 1, 'still here', { vector: vector([1, 0, 0]) });
      await store.writeFile({ entry: catalogEntry('live.ts', { embedder: 'test:model@3' }), chunks: [live] });
      const gone = chunk('gone.ts', 1, 'deleted file', { vector: vector([0, 1, 0]) });
      await store.writeFile({ entry: catalogEntry('gone.ts', { embedder: 'test:model@3' }), chunks: [gone] });
      await store.deleteFile('gone.ts');
      await store.putCachedVectors('old:model@2', new Map([['h-old', Float32Array.from([1, 2])]]));
      expect(await store.collectGarbage({ keepUnreferenced: 10 })).toEqual({ removedVectors: 0, keptUnreferenced: 2 });
      expect(await store.collectGarbage({ keepUnreferenced: 1 })).toEqual({ removedVectors: 1, keptUnreferenced: 1 });
      expect(await store.collectGarbage({ keepUnreferenced: 0, compact: true })).toEqual({ removedVectors: 1, keptUnreferenced: 0 });
      expect((await store.getCachedVectors('test:model@3', [live.contentHash])).size).toBe(1);
      expect(await store.searchVectors({ embedderId: 'test:model@3', vector: vector([1, 0, 0]), limit: 3 })).toHaveLength(1);
      expect((await store.counts()).cachedEmbeddings).toBe(1);
    });

    it('finds chunks by the symbols and files a query names', async () => {
      await store.writeFile({
        entry: catalogEntry('src/users/user-service.ts'),
        chunks: [
          chunk('src/users/user-service.ts', 1, 'class UserService {}', { symbol: 'UserService', symbols: ['UserService', 'UserService.findById'] }),
          chunk('src/users/user-service.ts', 9, 'helper text'),
        ],
      });
      await store.writeFile({ entry: catalogEntry('src/other.ts'), chunks: [chunk('src/other.ts', 1, 'function findById_() {}', { symbol: 'findByIdx' })] });
      const bySymbol = await store.findMentions({ symbols: ['findbyid'], paths: [], limit: 10 });
      expect(bySymbol.map((row) => [row.path, row.score])).toEqual([['src/users/user-service.ts', 1]]);
      const byQualified = await store.findMentions({ symbols: ['UserService.findById'], paths: [], limit: 10 });
      expect(byQualified).toHaveLength(1);
      const byPath = await store.findMentions({ symbols: [], paths: ['user-service.ts'], limit: 10 });
      expect(byPath.map((row) => row.path)).toEqual(['src/users/user-service.ts', 'src/users/user-service.ts']);
      expect(await store.findMentions({ symbols: [], paths: ['%.ts'], limit: 10 })).toEqual([]);
      expect(await store.findMentions({ symbols: ['UserService'], paths: [], limit: 10, filter: { pathPrefixes: ['lib/'] } })).toEqual([]);
      await store.deleteFile('src/users/user-service.ts');
      expect(await store.findMentions({ symbols: ['UserService'], paths: [], limit: 10 })).toEqual([]);
    });

    it('writes and deletes batches atomically, lists by prefix, keeps attributes', async () => {
      await store.writeFiles([
        { entry: catalogEntry('ns/a/1', { attributes: '{"kind":"note"}' }), chunks: [chunk('ns/a/1', 1, 'first record')] },
        { entry: catalogEntry('ns/a/2'), chunks: [chunk('ns/a/2', 1, 'second record')] },
        { entry: catalogEntry('ns/ab/3'), chunks: [chunk('ns/ab/3', 1, 'third record')] },
      ]);
      expect((await store.listCatalog({ pathPrefix: 'ns/a/' })).map((entry) => entry.path)).toEqual(['ns/a/1', 'ns/a/2']);
      expect(await store.countCatalog('ns/a/')).toBe(2);
      expect(await store.countCatalog('ns/')).toBe(3);
      expect(await store.countCatalog('ns/c/')).toBe(0);
      expect(await store.countCatalog()).toBe(3);
      const entries = await store.getCatalogEntries(['ns/a/1', 'ns/ab/3', 'missing']);
      expect([...entries.keys()].sort()).toEqual(['ns/a/1', 'ns/ab/3']);
      expect(entries.get('ns/a/1')?.attributes).toBe('{"kind":"note"}');
      expect(entries.get('ns/ab/3')?.attributes).toBeUndefined();

      const broken = chunk('ns/b/5', 1, 'x');
      (broken as unknown as { text: unknown }).text = null;
      await expect(
        store.writeFiles([
          { entry: catalogEntry('ns/b/4'), chunks: [chunk('ns/b/4', 1, 'would be written')] },
          { entry: catalogEntry('ns/b/5'), chunks: [broken] },
        ]),
      ).rejects.toThrow();
      expect(await store.listCatalog({ pathPrefix: 'ns/b/' })).toEqual([]);
      expect(await store.countCatalog('ns/b/')).toBe(0);
      expect(await searchLexical(store, { terms: ['written'], weights, limit: 5 })).toEqual([]);

      await store.deleteFiles(['ns/a/1', 'ns/a/2']);
      expect((await store.listCatalog()).map((entry) => entry.path)).toEqual(['ns/ab/3']);
      expect(await searchLexical(store, { terms: ['first', 'second'], weights, limit: 5 })).toEqual([]);
    });

    it('reads catalog entries as they are now, after every kind of change since an earlier read', async () => {
      await store.writeFile({ entry: catalogEntry('c.ts', { size: 10 }), chunks: [chunk('c.ts', 1, 'one')] });
      const read = async () => store.getCatalogEntries(['c.ts', 'd.ts']);
      expect([...(await read()).keys()]).toEqual(['c.ts']);
      await store.touchFile('c.ts', 11, 7);
      expect((await read()).get('c.ts')).toMatchObject({ size: 11, mtimeMs: 7 });
      await store.writeFiles([
        { entry: catalogEntry('c.ts', { size: 12, attributes: '{"imports":["./d"]}' }), chunks: [chunk('c.ts', 1, 'two')] },
        { entry: catalogEntry('d.ts'), chunks: [] },
      ]);
      const after = await read();
      expect(after.get('c.ts')).toMatchObject({ size: 12, attributes: '{"imports":["./d"]}' });
      expect(after.has('d.ts')).toBe(true);
      await store.deleteFiles(['d.ts']);
      expect([...(await read()).keys()]).toEqual(['c.ts']);
    });

    it('touches metadata and keeps named state', async () => {
      await store.writeFile({ entry: catalogEntry('a.ts'), chunks: [] });
      const before = (await store.getCatalogEntry('a.ts'))?.indexedAt ?? 0;
      const touchedAt = Date.now();
      await store.touchFile('a.ts', 999, 42);
      expect(await store.getCatalogEntry('a.ts')).toMatchObject({ size: 999, mtimeMs: 42 });
      // Checked now: a touched file with the same content takes the size+mtime fast path again.
      expect((await store.getCatalogEntry('a.ts'))?.indexedAt).toBeGreaterThanOrEqual(Math.max(before, touchedAt));
      expect(await store.readState('k')).toBeUndefined();
      await store.writeState('k', '{"a":1}');
      expect(await store.readState('k')).toBe('{"a":1}');
      await store.writeState('b:key', 'two');
      expect(await store.listState()).toEqual([
        ['b:key', 'two'],
        ['k', '{"a":1}'],
      ]);
    });

    it('updates named state as a compare-and-set: concurrent updates never lose one another', async () => {
      expect(await store.updateState('n', (current) => (current === undefined ? '0' : undefined))).toBe('0');
      expect(await store.updateState('n', (current) => (current === undefined ? 'x' : undefined))).toBe('0'); // left as it was
      await Promise.all(Array.from({ length: 20 }, () => store.updateState('n', (current) => String(Number(current) + 1))));
      expect(await store.readState('n')).toBe('20');
    });
  });
}
