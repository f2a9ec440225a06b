import { statSync, utimesSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/spec.js';
import { catalogEntry, chunk } from '../../store/test-support/store-contract.js';
import { fts5Oracle } from '../../store/test-support/fts5-oracle.js';
import { queryTerms } from '../../lexical/tokenize.js';
import { graphBuildStarted } from './graph-builds.js';
import { WarmIndex } from './warm-index.js';
import { readGraphKeys, storeTag } from '../../store/graph-file-sum.js';
import { STORE_INSTANCE_STATE } from '../../store/file-names.js';
import { SegmentError } from '../../store/segment-format.js';
import { pick, random, vocabulary } from './test-words.js';

const weights = { path: 1.5, symbols: 2, heading: 1.5, body: 1 };

let folder: string;
let store: Store;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-warm-'));
  store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
});
afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

async function writeRandomFile(next: () => number, path: string) {
  const chunks = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, index) => {
    const words = Array.from({ length: 3 + Math.floor(next() * 40) }, () => pick(next));
    const symbol = next() < 0.3 ? pick(next) : undefined;
    return chunk(path, index * 10 + 1, words.join(' '), symbol ? { symbol } : {});
  });
  await store.writeFile({ entry: catalogEntry(path), chunks });
}

describe('warm index', () => {
  it('ranks exactly like SQLite FTS5 bm25(), through writes, rewrites and deletes', async () => {
    const next = random(7);
    const warm = new WarmIndex(store, { weights, embedderId: 'none', dimensions: 0 });
    const compare = async () => {
      await warm.refresh();
      const oracle = await fts5Oracle(store);
      for (let query = 0; query < 25; query++) {
        const text = Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(next)).join(' ');
        const terms = queryTerms(text);
        const cold = oracle.search({ terms, weights, limit: 15 });
        const hot = warm.searchLexical(terms, 15, undefined);
        expect(hot.length).toBeGreaterThan(0);
        expect(hot.map((row) => [row.rowId, row.score.toFixed(9)])).toEqual(cold.map((row) => [row.rowId, row.score.toFixed(9)]));
      }
      oracle.close();
    };
    for (let file = 0; file < 60; file++) await writeRandomFile(next, `src/${file % 3 === 0 ? 'a' : 'b'}/file${file}.ts`);
    await compare();
    for (let file = 0; file < 60; file += 4) await writeRandomFile(next, `src/${file % 3 === 0 ? 'a' : 'b'}/file${file}.ts`); // rewrites
    for (let file = 1; file < 60; file += 5) await store.deleteFile(`src/${file % 3 === 0 ? 'a' : 'b'}/file${file}.ts`);
    await compare();
    const filter = { pathPrefixes: ['src/a/'] };
    await warm.refresh();
    const terms = [vocabulary[0] as string, vocabulary[1] as string, vocabulary[5] as string];
    const oracle = await fts5Oracle(store);
    const cold = oracle.search({ terms, weights, limit: 10, filter });
    oracle.close();
    expect(cold.length).toBeGreaterThan(0);
    expect(warm.searchLexical(terms, 10, filter).map((row) => row.rowId)).toEqual(cold.map((row) => row.rowId));
  });

  it('sees writes made by another connection to the same store', async () => {
    const other = openSqliteStore({ file: join(folder, 'index.db') });
    const warm = new WarmIndex(store, { weights, embedderId: 'none', dimensions: 0 });
    await warm.refresh();
    expect(warm.size).toBe(0);
    await other.writeFile({ entry: catalogEntry('x.ts'), chunks: [chunk('x.ts', 1, 'unique marmalade')] });
    await warm.refresh();
    expect(warm.searchLexical(['marmalad'], 5, undefined)).toHaveLength(1);
    await other.deleteFile('x.ts');
    await warm.refresh();
    expect(warm.searchLexical(['marmalad'], 5, undefined)).toHaveLength(0);
    await other.close();
  });

  it('a reset while a catch-up waits on the store (damage found by another search) still ends holding every row', async () => {
    // 2,500 rows: the catch-up reads them in three slices.
    for (let file = 0; file < 50; file++) {
      const chunks = Array.from({ length: 50 }, (_, index) => chunk(`f${file}.ts`, index * 10 + 1, `shared word${index} file${file}`));
      await store.writeFile({ entry: catalogEntry(`f${file}.ts`), chunks });
    }
    for (const at of ['scanIndexRows', 'readLexicon'] as const) {
      // While the catch-up awaits the store's second slice (or its lexicon), another search meets damage in the segment.
      let calls = 0;
      let second: Promise<number> | undefined;
      const waiting = new Proxy(store, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (key !== at || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: unknown[]) => {
            const answer = await value.apply(target, args);
            if (++calls === (at === 'scanIndexRows' ? 2 : 1)) {
              let thrown = false;
              second = warm.guard(() => {
                if (!thrown) {
                  thrown = true;
                  throw new SegmentError('damaged block', { damaged: false });
                }
                return warm.searchLexical(['share'], 3000, undefined).length;
              });
            }
            return answer;
          };
        },
      });
      const warm = new WarmIndex(waiting, { weights, embedderId: 'none', dimensions: 0 });
      await warm.refresh();
      expect(second).toBeDefined();
      expect(await second).toBe(2500);
      await warm.refresh();
      expect(warm.size).toBe(2500);
      expect(warm.searchLexical(['share'], 3000, undefined)).toHaveLength(2500);
      expect(warm.searchLexical(['file49'], 100, undefined)).toHaveLength(50);
    }
  });

  it('a long-lived index maps the graph it saved: a few rows later, saving again leaves the file alone (the graph held in memory rewrites it)', async () => {
    const next = random(5);
    const vector = () => Float32Array.from({ length: 8 }, () => next() - 0.5);
    const write = async (from: number, count: number) => {
      for (let file = from; file < from + count; file++) {
        await store.writeFile({ entry: catalogEntry(`v${file}.ts`, { embedder: 'e@8' }), chunks: [chunk(`v${file}.ts`, 1, `word${file}`, { vector: vector() })] });
      }
    };
    await write(0, 300);
    await store.writeState(STORE_INSTANCE_STATE, 'this-store');
    for (const searchThread of [true, false]) {
      const graphFile = join(folder, `graph-${searchThread}.hnsw`);
      const warm = new WarmIndex(store, { weights, embedderId: 'e@8', dimensions: 8, graphFile, graphThreshold: 50, searchThread });
      await warm.refresh();
      expect(warm.usesVectorGraph).toBe(true);
      await warm.persist(); // the graph built here is saved, for this store
      expect(readGraphKeys(graphFile)?.store).toBe(storeTag('this-store'));
      utimesSync(graphFile, new Date(1_000_000), new Date(1_000_000));
      await write(1000 + (searchThread ? 0 : 10), 5);
      await warm.persist();
      expect(statSync(graphFile).mtimeMs === 1_000_000).toBe(searchThread);
      const query = vector();
      expect(warm.searchVectors(query, 5, undefined)).toHaveLength(5);
      warm.close();
    }
  });

  it('leaves a graph this process is building on a worker to it: exact answers meanwhile, the graph after', async () => {
    const next = random(9);
    const vector = () => Float32Array.from({ length: 8 }, () => next() - 0.5);
    for (let file = 0; file < 120; file++) {
      await store.writeFile({ entry: catalogEntry(`g${file}.ts`, { embedder: 'e@8' }), chunks: [chunk(`g${file}.ts`, 1, `word${file}`, { vector: vector() })] });
    }
    const graphFile = join(folder, 'built-elsewhere.hnsw');
    const release = graphBuildStarted(join(folder, '.', 'built-elsewhere.hnsw')); // the same file, named another way
    const warm = new WarmIndex(store, { weights, embedderId: 'e@8', dimensions: 8, graphFile, graphThreshold: 50, searchThread: false });
    try {
      await warm.refresh();
      expect(warm.usesVectorGraph).toBe(false); // past the threshold, but the worker's graph is awaited
      const query = vector();
      const exact = warm.searchVectors(query, 5, undefined);
      expect(exact).toHaveLength(5);
      release();
      release(); // twice is once
      await store.writeFile({ entry: catalogEntry('late.ts', { embedder: 'e@8' }), chunks: [chunk('late.ts', 1, 'late', { vector: vector() })] });
      await warm.refresh();
      expect(warm.usesVectorGraph).toBe(true);
      // The graph only proposes candidates (approximate): the best row is the exact one's.
      expect(warm.searchVectors(query, 5, undefined)[0]?.rowId).toBe(exact[0]?.rowId);
    } finally {
      release();
      warm.close();
    }
  });

  it('holds vectors of its embedder only', async () => {
    await store.writeFile({
      entry: catalogEntry('v.ts', { embedder: 'e@2' }),
      chunks: [chunk('v.ts', 1, 'a', { vector: Float32Array.from([1, 0]) }), chunk('v.ts', 2, 'b', { vector: Float32Array.from([0, 1]) })],
    });
    const warm = new WarmIndex(store, { weights, embedderId: 'e@2', dimensions: 2 });
    await warm.refresh();
    const rows = warm.searchVectors(Float32Array.from([1, 0.1]), 2, undefined);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.score).toBeGreaterThan(rows[1]!.score);
    const other = new WarmIndex(store, { weights, embedderId: 'f@2', dimensions: 2 });
    await other.refresh();
    expect(other.searchVectors(Float32Array.from([1, 0]), 2, undefined)).toEqual([]);
  });
});

describe('FlatVectorIndex prefix filters', () => {
  it('returns exactly what a full filtered scan returns, for folder, partial and root prefixes', async () => {
    const { FlatVectorIndex } = await import('./vector-index.js');
    const { compileFilter } = await import('../../store/filter-match.js');
    const index = new FlatVectorIndex(8);
    const folders = ['', 'src', 'src/app', 'src/apple', 'agent/a1', 'agent/a10', 'docs/guide'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
    for (let row = 0; row < 400; row++) {
      const folder = folders[row % folders.length] as string;
      const path = folder ? `${folder}/#r${row}` : `README${row}.md`;
      index.add(row, Float32Array.from({ length: 8 }, random), { path, language: row % 3 === 0 ? 'note' : 'turn' });
    }
    for (let row = 0; row < 400; row += 9) index.remove(row);
    const query = Float32Array.from({ length: 8 }, random);
    for (const filter of [
      { pathPrefixes: ['src/app'] },
      { pathPrefixes: ['src/app/'] },
      { pathPrefixes: ['agent/a1/'] },
      { pathPrefixes: ['READ'] },
      { pathPrefixes: ['docs/', 'agent/'], languages: ['note'] },
    ]) {
      const accept = compileFilter(filter);
      const plain = (path: string, language: string) => (accept as (p: string, l: string) => boolean)(path, language);
      expect(index.search(query, 20, accept)).toEqual(index.search(query, 20, plain));
      expect(index.search(query, 20, accept).length).toBeGreaterThan(0);
    }
    // Packed folder copies follow later writes: removals, re-adds and new rows.
    const accept = compileFilter({ pathPrefixes: ['agent/a1/'] });
    index.search(query, 20, accept);
    for (let row = 4; row < 400; row += 14) index.remove(row);
    index.search(query, 20, accept);
    for (let row = 400; row < 440; row++) index.add(row, Float32Array.from({ length: 8 }, random), { path: `agent/a1/#r${row}`, language: 'note' });
    const plain = (path: string, language: string) => (accept as (p: string, l: string) => boolean)(path, language);
    expect(index.search(query, 30, accept)).toEqual(index.search(query, 30, plain));
  });
});

describe('LexicalIndex prefix filters', () => {
  it('scores a selective prefix (document at a time, or over marked postings) exactly as the plain filter does', async () => {
    const { LexicalIndex } = await import('./lexical-index.js');
    const { compileFilter } = await import('../../store/filter-match.js');
    const termIds = new Map<string, number>();
    const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'tau', 'phi'];
    words.forEach((word, index) => termIds.set(word, index + 1));
    for (const folders of [40, 10]) {
      const index = new LexicalIndex({ path: 1, symbols: 2, heading: 0.5, body: 1 }, termIds);
      let seed = 11;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let row = 1; row <= 2000; row++) {
        const chosen = [...new Set(Array.from({ length: 1 + Math.floor(random() * 5) }, () => 1 + Math.floor(random() * words.length)))].sort((a, b) => a - b);
        const frequencies = new Uint16Array(chosen.length * 4).map(() => Math.floor(random() * 3));
        const fieldLengths = [1, 2, 3, 10 + Math.floor(random() * 20)];
        index.add(row, { path: `ns/n${row % folders}/#r${row}`, language: 'note' }, { termIds: Uint32Array.from(chosen), frequencies, fieldLengths } as never);
      }
      for (let row = 1; row <= 2000; row += 7) index.remove(row);
      for (const prefixes of [['ns/n7/'], ['ns/n1'], ['ns/n3/', 'ns/n4/']]) {
        const accept = compileFilter({ pathPrefixes: prefixes });
        const plain = (path: string, language: string) => (accept as (p: string, l: string) => boolean)(path, language);
        const fast = index.search(['alpha', 'gamma', 'phi', 'unknown'], 15, accept);
        expect(fast.length).toBeGreaterThan(0);
        expect(fast).toEqual(index.search(['alpha', 'gamma', 'phi', 'unknown'], 15, plain));
        // One term: few postings, so the marked-postings walk is the cheaper one.
        expect(index.search(['phi'], 15, accept)).toEqual(index.search(['phi'], 15, plain));
      }
    }
  });
});

describe('LexicalIndex.addMany', () => {
  it('holds and scores exactly what adding the same rows one at a time does, re-added rows included', async () => {
    const { LexicalIndex } = await import('./lexical-index.js');
    const termIds = new Map<string, number>();
    const words = Array.from({ length: 300 }, (_, index) => `w${index}`);
    words.forEach((word, index) => termIds.set(word, index + 1));
    let seed = 29;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // Skewed term choice, so some lists grow past several doublings within one batch.
    const row = (rowId: number) => {
      const chosen = [...new Set(Array.from({ length: 1 + Math.floor(random() * 12) }, () => 1 + Math.floor(random() ** 3 * words.length)))].sort((a, b) => a - b);
      const frequencies = new Uint16Array(chosen.length * 4).map(() => Math.floor(random() * 4));
      const fieldLengths: [number, number, number, number] = [1, 2, 3, 10 + Math.floor(random() * 40)];
      return { rowId, meta: { path: `src/d${rowId % 9}/f${rowId}.ts`, language: 'typescript' }, terms: { termIds: Uint32Array.from(chosen), frequencies, fieldLengths } };
    };
    const rows = Array.from({ length: 3000 }, (_, index) => row(index + 1));
    // Rows written again later (a rewrite): the batch holding them takes add()'s path.
    const rewrites = [5, 700, 2999].map((rowId) => row(rowId));
    const weights = { path: 1, symbols: 2, heading: 0.5, body: 1 };
    const extra = row(5000);
    const one = new LexicalIndex(weights, termIds);
    for (const each of [...rows, extra, ...rewrites]) one.add(each.rowId, each.meta, each.terms as never);
    const many = new LexicalIndex(weights, termIds);
    for (let start = 0; start < rows.length; ) {
      const size = 1 + Math.floor(random() * 400);
      many.addMany(rows.slice(start, start + size) as never);
      start += size;
    }
    many.addMany([extra, ...rewrites] as never);
    expect(many.size).toBe(one.size);
    const snapshot = (index: InstanceType<typeof LexicalIndex>) => {
      const taken = index.snapshot();
      return {
        rowIds: [...taken.rowIds],
        postingTerms: [...taken.postingTerms],
        postingMax: [...taken.postingMax],
        postings: [...taken.postingTerms.keys()].map((term) => ({ slots: [...taken.postings(term).slots], weighted: [...taken.postings(term).weighted] })),
        rowTerms: [...taken.rowIds.keys()].map((rowIndex) => [...taken.rowTerms(rowIndex).termIds]),
      };
    };
    expect(snapshot(many)).toEqual(snapshot(one));
    for (let query = 0; query < 40; query++) {
      const terms = Array.from({ length: 1 + Math.floor(random() * 4) }, () => words[Math.floor(random() * words.length)] as string);
      expect(many.search(terms, 10)).toEqual(one.search(terms, 10));
    }
  });
});
