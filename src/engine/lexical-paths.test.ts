import { readdirSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResponse } from '../retrieve/search-types.js';
import { createLoci, type Loci } from './create-loci.js';

// A real corpus: this repository's own sources (a few hundred files of code and comments).
const root = fileURLToPath(new URL('..', import.meta.url));
const queries = [
  'how are lexical and vector scores fused',
  'tokenize camelCase identifiers',
  'stop words',
  'abort signal',
  'retry after header',
  'walk folder respecting gitignore',
  'markdown heading chunks',
  'WarmIndex',
  'cosine similarity of vectors',
  'namespace of memory records',
  'token budget for the prompt',
  'sqlite schema migration',
  'secret rules',
  'top k selection heap',
  'progress events while indexing',
];

let store: string;
let warm: Loci;
let cold: Loci;
beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), 'loci-lexical-paths-'));
  warm = createLoci({ root, store, embedder: 'static', config: { indexing: { worker: false } } });
  await warm.index();
  // Without its segment file a one-shot engine rebuilds loci's index from the store's term rows.
  for (const name of readdirSync(store)) if (name.endsWith('.seg')) rmSync(join(store, name));
  cold = createLoci({ root, store, embedder: 'static', inMemory: false });
}, 120_000);
afterAll(async () => {
  await warm?.close();
  await cold?.close();
  await rm(store, { recursive: true, force: true });
});

const ranked = (response: SearchResponse) => response.results.map((result) => `${result.path}:${result.startLine}`);

describe('one lexical ranking on SQLite', () => {
  it('a warm engine and a one-shot engine without a segment (index rebuilt from term rows) return the same chunks, in the same order, with the same scores', async () => {
    for (const query of queries) {
      for (const mode of ['lexical', 'hybrid'] as const) {
        const [fromMemory, fromStore] = [await warm.search(query, { mode, topK: 10 }), await cold.search(query, { mode, topK: 10 })];
        expect(fromMemory.retrieval).toMatchObject({ index: 'memory', lexical: 'bm25' });
        expect(fromStore.retrieval).toMatchObject({ index: 'memory', lexical: 'bm25' });
        expect({ query, mode, results: ranked(fromStore) }).toEqual({ query, mode, results: ranked(fromMemory) });
        fromStore.results.forEach((result, index) => expect(result.score).toBeCloseTo(fromMemory.results[index]?.score ?? Number.NaN, 6));
      }
    }
  });

  it('the default ranked search agrees too (the learned ranker reads the same term statistics on both paths)', async () => {
    for (const query of queries) {
      const [fromMemory, fromStore] = [await warm.search(query, { topK: 10 }), await cold.search(query, { topK: 10 })];
      expect({ query, results: ranked(fromStore) }).toEqual({ query, results: ranked(fromMemory) });
    }
  });

  it('the one-shot engine leaves a segment file at close, which the next one-shot engine reads', async () => {
    await cold.close();
    const segments = readdirSync(store).filter((name) => name.endsWith('.seg') && !name.startsWith('memory-'));
    expect(segments).toHaveLength(1);
    cold = createLoci({ root, store, embedder: 'static', inMemory: false });
    for (const query of queries.slice(0, 5)) {
      const [fromMemory, fromSegment] = [await warm.search(query, { topK: 10 }), await cold.search(query, { topK: 10 })];
      expect({ query, results: ranked(fromSegment) }).toEqual({ query, results: ranked(fromMemory) });
    }
  });
});
