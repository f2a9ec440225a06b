// The vector graph built beside a run on its own thread, driven through the built library
// (dist/): the worker file exists only after the build.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

type BackgroundGraphModule = typeof import('../../src/indexing/background-graph.js');
type StoreModule = typeof import('../../src/store/sqlite/sqlite-store.js');
type VectorIndexModule = typeof import('../../src/retrieve/warm/exact-or-graph-vector-index.js');
type Contract = typeof import('../../src/store/test-support/store-contract.js');
type GraphSumModule = typeof import('../../src/store/graph-file-sum.js');

const dist = (path: string) => import(join(process.cwd(), 'dist', path));
const DIMENSIONS = 16;
const EMBEDDER = 'test:graph@16';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-background-graph-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
}

describe('background vector graph', () => {
  it('follows the commits of a run, saves a graph of exactly the live rows at finish, and the engine maps it', async () => {
    const { BackgroundGraph } = (await dist('indexing/background-graph.js')) as BackgroundGraphModule;
    const { openSqliteStore } = (await dist('store/sqlite/sqlite-store.js')) as StoreModule;
    const { ExactOrGraphVectorIndex, defaultHnswOptions } = (await dist('retrieve/warm/exact-or-graph-vector-index.js')) as VectorIndexModule;
    const { catalogEntry, chunk } = (await import('../../src/store/test-support/store-contract.js')) as Contract;
    const { readGraphKeys, storeTag } = (await dist('store/graph-file-sum.js')) as GraphSumModule;
    const store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
    await store.setEmbedder(EMBEDDER, DIMENSIONS);
    await store.writeState('store-instance', 'store-one');
    const graphFile = join(folder, 'vectors.hnsw');
    const next = random(5);
    const vectors = new Map<number, Float32Array>();
    const build = BackgroundGraph.forRun({ store, embedderId: EMBEDDER, dimensions: DIMENSIONS, graphFile, chunksBefore: 0, threshold: 200 });
    expect(build).toBeDefined();
    const write = async (file: number) => {
      const chunks = Array.from({ length: 10 }, (_, index) => chunk(`f${file}.ts`, index * 5 + 1, `file ${file} part ${index}`, { vector: Float32Array.from({ length: DIMENSIONS }, next) }));
      await store.writeFile({ entry: catalogEntry(`f${file}.ts`, { embedder: EMBEDDER, chunkCount: 10 }), chunks });
      build?.observe({ type: 'file-indexed', path: `f${file}.ts`, chunks: 10, done: file + 1, total: 60 });
    };
    // Below half the threshold nothing starts; past it the worker starts and reads what is there.
    for (let file = 0; file < 9; file++) await write(file);
    expect(build?.started).toBe(false);
    for (let file = 9; file < 60; file++) await write(file);
    expect(build?.started).toBe(true);
    expect(await build?.finish()).toBe(600);
    await build?.stop();
    expect(existsSync(graphFile) && existsSync(`${graphFile}.keys`)).toBe(true);
    // Saved for this store: another store at this path (deleted and made again) would not read it.
    expect(readGraphKeys(graphFile)?.store).toBe(storeTag('store-one'));

    for (const row of await store.scanIndexRows({ embedderId: EMBEDDER })) vectors.set(row.rowId, row.vector as Float32Array);
    const mapped = new ExactOrGraphVectorIndex(DIMENSIONS, { ...defaultHnswOptions, threshold: 200, file: graphFile, storeInstance: () => 'store-one' });
    const exact = new ExactOrGraphVectorIndex(DIMENSIONS, { ...defaultHnswOptions, threshold: 1_000_000 });
    for (const [rowId, vector] of vectors) {
      mapped.add(rowId, vector, { path: 'p', language: 'typescript' });
      exact.add(rowId, vector, { path: 'p', language: 'typescript' });
    }
    mapped.ensureGraph();
    expect(mapped.usesGraph && mapped.mapped).toBe(true);
    let same = 0;
    for (let query = 0; query < 20; query++) {
      const vector = Float32Array.from({ length: DIMENSIONS }, next);
      const [fromGraph, fromScan] = [mapped.search(vector, 10), exact.search(vector, 10)];
      same += fromGraph.filter((row) => fromScan.some((other) => other.rowId === row.rowId)).length;
    }
    expect(same / 200).toBeGreaterThanOrEqual(0.95);
    await store.close();
  });

  it('adds the rows left at finish on every core, after a run that grew the graph step by step', async () => {
    const { BackgroundGraph } = (await dist('indexing/background-graph.js')) as BackgroundGraphModule;
    const { openSqliteStore } = (await dist('store/sqlite/sqlite-store.js')) as StoreModule;
    const { catalogEntry, chunk } = (await import('../../src/store/test-support/store-contract.js')) as Contract;
    const store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
    await store.setEmbedder(EMBEDDER, DIMENSIONS);
    const graphFile = join(folder, 'vectors.hnsw');
    const next = random(11);
    let file = 0;
    const writeFiles = async (count: number) => {
      const writes = Array.from({ length: count }, () => {
        const path = `f${file++}.ts`;
        const chunks = Array.from({ length: 10 }, (_, index) => chunk(path, index * 5 + 1, `${path} part ${index}`, { vector: Float32Array.from({ length: DIMENSIONS }, next) }));
        return { entry: catalogEntry(path, { embedder: EMBEDDER, chunkCount: 10 }), chunks };
      });
      await store.writeFiles(writes);
    };
    // Four finishing threads whatever this machine has: the multi-threaded finish is what is tested.
    const build = BackgroundGraph.forRun({ store, embedderId: EMBEDDER, dimensions: DIMENSIONS, graphFile, chunksBefore: 10_000, threshold: 200, finishThreads: 4 });
    expect(build?.started).toBe(true);
    // The run's rows reach the graph while it runs (one thread, the graph growing as they come)...
    await writeFiles(150);
    const deadline = Date.now() + 60_000;
    while ((build?.rowsAdded ?? 0) < 1_500 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(build?.rowsAdded).toBe(1_500);
    // ...and the last ones, which fit in the room the graph has, are added at finish on every
    // core (an add on more threads than the graph last reserved for fails in usearch).
    await writeFiles(30);
    expect(await build?.finish()).toBe(1_800);
    await build?.stop();
    expect(existsSync(graphFile)).toBe(true);
    await store.close();
  });

  it('saves nothing for a store deleted and made again while it built', async () => {
    const { BackgroundGraph } = (await dist('indexing/background-graph.js')) as BackgroundGraphModule;
    const { openSqliteStore } = (await dist('store/sqlite/sqlite-store.js')) as StoreModule;
    const { catalogEntry, chunk } = (await import('../../src/store/test-support/store-contract.js')) as Contract;
    const file = join(folder, 'index.db');
    const store = openSqliteStore({ file, create: true });
    await store.setEmbedder(EMBEDDER, DIMENSIONS);
    const graphFile = join(folder, 'vectors.hnsw');
    const next = random(3);
    const build = BackgroundGraph.forRun({ store, embedderId: EMBEDDER, dimensions: DIMENSIONS, graphFile, chunksBefore: 10_000, threshold: 200 });
    expect(build?.started).toBe(true);
    const writes = Array.from({ length: 30 }, (_, at) => ({
      entry: catalogEntry(`f${at}.ts`, { embedder: EMBEDDER, chunkCount: 10 }),
      chunks: Array.from({ length: 10 }, (_, index) => chunk(`f${at}.ts`, index * 5 + 1, `f${at} part ${index}`, { vector: Float32Array.from({ length: DIMENSIONS }, next) })),
    }));
    await store.writeFiles(writes);
    const deadline = Date.now() + 60_000;
    while ((build?.rowsAdded ?? 0) < 300 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    // `rm -rf .loci` and a new store at the same path, as another `loci index` makes it.
    await store.close();
    for (const path of [file, `${file}-wal`, `${file}-shm`]) await rm(path, { force: true });
    const replaced = openSqliteStore({ file, create: true });
    await replaced.setEmbedder(EMBEDDER, DIMENSIONS);
    expect(await build?.finish()).toBeUndefined();
    await build?.stop();
    expect(existsSync(graphFile) || existsSync(`${graphFile}.keys`)).toBe(false);
    await replaced.close();
  });

  it('does not start for a store that already has a graph, and a stopped worker saves nothing', async () => {
    const { BackgroundGraph } = (await dist('indexing/background-graph.js')) as BackgroundGraphModule;
    const { openSqliteStore } = (await dist('store/sqlite/sqlite-store.js')) as StoreModule;
    const store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
    const graphFile = join(folder, 'vectors.hnsw');
    const build = BackgroundGraph.forRun({ store, embedderId: EMBEDDER, dimensions: DIMENSIONS, graphFile, chunksBefore: 1_000, threshold: 200 });
    expect(build?.started).toBe(true);
    await build?.stop();
    expect(existsSync(graphFile)).toBe(false);
    expect(await build?.finish()).toBeUndefined();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(graphFile, 'x');
    expect(BackgroundGraph.forRun({ store, embedderId: EMBEDDER, dimensions: DIMENSIONS, graphFile, chunksBefore: 1_000, threshold: 200 })).toBeUndefined();
    expect(BackgroundGraph.forRun({ store, embedderId: 'none', dimensions: 0, graphFile: join(folder, 'other.hnsw'), chunksBefore: 1_000, threshold: 200 })).toBeUndefined();
    await store.close();
  });
});
