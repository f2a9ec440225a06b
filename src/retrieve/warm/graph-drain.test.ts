import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusteredVectors } from './test-words.js';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { FlatVectorIndex } from './vector-index.js';
import { drainInBackground } from './graph-builds.js';
import { readGraphKeys } from './usearch-graph.js';
import { WarmIndex } from './warm-index.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/spec.js';
import { catalogEntry, chunk } from '../../store/test-support/store-contract.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-graph-drain-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('row changes an in-memory graph takes between searches (drain)', () => {
  const dimensions = 32;
  const vectors = clusteredVectors(2400, dimensions, 5);
  const queries = clusteredVectors(40, dimensions, 77);
  const meta = (rowId: number) => ({ path: `file${rowId}.ts`, language: 'go' });
  // One thread: usearch's concurrent add can leave a node no search reaches (see exact-or-graph-vector-index.test.ts).
  const options = (name: string) => ({ threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 128, addThreads: 1, file: join(folder, name) });
  /** Rows [0, 1200) with the graph built, rows [1200, 1800) added after it, rows divisible by 7 below 1200 removed; and an exact index of the same live rows. */
  const changed = (name: string) => {
    const index = new ExactOrGraphVectorIndex(dimensions, options(name));
    const exact = new FlatVectorIndex(dimensions);
    for (let rowId = 0; rowId < 1200; rowId++) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    for (let rowId = 1200; rowId < 1800; rowId++) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    for (let rowId = 0; rowId < 1200; rowId += 7) index.remove(rowId);
    for (let rowId = 0; rowId < 1800; rowId++) if (rowId >= 1200 || rowId % 7 !== 0) exact.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    return { index, exact };
  };
  const live = (rowId: number) => rowId < 1800 && (rowId >= 1200 || rowId % 7 !== 0);

  it('leaves added and removed rows out of the graph until drained, while searches score the added ones exactly and never return the removed', () => {
    const { index, exact } = changed('pending.hnsw');
    // 600 added and 172 removed: none applied to the graph by add() or remove().
    expect(index.undrained).toBe(600 + 172);
    let newRowsFound = 0;
    for (const query of queries) {
      const rows = index.search(query, 10);
      expect(rows.every((row) => live(row.rowId))).toBe(true);
      // A row found has its exact score, whichever side found it.
      const truth = new Map(exact.search(query, 1800).map((row) => [row.rowId, row.score]));
      for (const row of rows) expect(row.score).toBeCloseTo(truth.get(row.rowId) as number, 6);
      newRowsFound += rows.filter((row) => row.rowId >= 1200).length;
    }
    expect(newRowsFound).toBeGreaterThan(0); // the added rows are searched before they are in the graph
    // A step's budget is kept: a first step of no time applies one change at most.
    expect(index.drain(0)).toBe(true);
    expect(index.undrained).toBe(600 + 171);
    while (index.drain(5));
    expect(index.undrained).toBe(0);
    let recall = 0;
    for (const query of queries) {
      const want = new Set(exact.search(query, 10).map((row) => row.rowId));
      const rows = index.search(query, 10);
      expect(rows.every((row) => live(row.rowId))).toBe(true);
      recall += rows.filter((row) => want.has(row.rowId)).length / 10;
    }
    expect(recall / queries.length).toBeGreaterThan(0.9);
  });

  it('a save applies every pending change first: the saved key list is the live rows', () => {
    const { index } = changed('saved.hnsw');
    index.persist();
    expect(index.undrained).toBe(0);
    const saved = [...(readGraphKeys(join(folder, 'saved.hnsw'))?.keys ?? [])].sort((a, b) => a - b);
    expect(saved).toEqual(Array.from({ length: 1800 }, (_, rowId) => rowId).filter(live));
  });

  it('a row id used again after its row was removed gets a fresh node, not a second one', () => {
    const index = new ExactOrGraphVectorIndex(dimensions, options('reused.hnsw'));
    for (let rowId = 0; rowId < 300; rowId++) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    index.ensureGraph();
    index.remove(299);
    index.add(299, vectors[2000] as Float32Array, meta(299)); // SQLite may give the last id again
    while (index.drain(5));
    const rows = index.search(vectors[2000] as Float32Array, 3);
    expect(rows[0]?.rowId).toBe(299);
    expect(rows.filter((row) => row.rowId === 299)).toHaveLength(1);
  });

  it('a graph loaded from a file that lacks rows takes them by draining, not all at once', () => {
    const first = new ExactOrGraphVectorIndex(dimensions, options('lacking.hnsw'));
    for (let rowId = 0; rowId < 1000; rowId++) first.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    first.ensureGraph();
    first.persist();
    const second = new ExactOrGraphVectorIndex(dimensions, options('lacking.hnsw'));
    for (let rowId = 0; rowId < 1300; rowId++) second.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    second.ensureGraph(false); // read into memory, not mapped
    expect(second.usesGraph).toBe(true);
    expect(second.undrained).toBe(300);
    expect(second.search(vectors[1250] as Float32Array, 1)[0]?.rowId).toBe(1250);
  });

  it('drainInBackground applies the changes between turns of the event loop, once per index, and stops when told', async () => {
    const { index } = changed('background.hnsw');
    drainInBackground(index, () => true);
    drainInBackground(index, () => true); // one drain per index at a time
    expect(index.undrained).toBe(772); // nothing before the first turn
    // An idle process (a server waiting on its sockets): the loop sleeps until this one timer, and the drain must go on meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(index.undrained).toBe(0);

    const stopped = changed('stopped.hnsw').index;
    let current = true;
    drainInBackground(stopped, () => current);
    current = false;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped.undrained).toBe(772);
  });
});

describe('a warm index drains its graph after every catch-up', () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loci-graph-drain-warm-'));
    store = openSqliteStore({ file: join(dir, 'index.db'), create: true });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const write = (file: number) =>
    store.writeFile({
      entry: catalogEntry(`src/f${file}.ts`, { embedder: 'e@8' }),
      chunks: Array.from({ length: 20 }, (_, i) =>
        chunk(`src/f${file}.ts`, i * 10 + 1, `alpha word${file} beta${i}`, { vector: Float32Array.from({ length: 8 }, (_, d) => Math.sin(file * 3 + i * 0.7 + d)) }),
      ),
    });

  it('also after a deferral of its graph ends with nothing new to catch up with', async () => {
    for (let file = 0; file < 5; file++) await write(file);
    const warm = new WarmIndex(store, { weights: { path: 1.5, symbols: 2, heading: 1.5, body: 1 }, embedderId: 'e@8', dimensions: 8, graphThreshold: 50, searchThread: false });
    try {
      await warm.refresh();
      const vectors = (warm as unknown as { vectors: ExactOrGraphVectorIndex }).vectors;
      expect(vectors.usesGraph).toBe(true);
      const release = warm.deferGraph();
      for (let file = 5; file < 15; file++) await write(file);
      await warm.refresh();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(vectors.undrained).toBe(200); // left alone while deferred
      release();
      await warm.refresh(); // nothing committed since: the same token
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(vectors.undrained).toBe(0);
    } finally {
      warm.close();
    }
  });
});
