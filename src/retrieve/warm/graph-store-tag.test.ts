import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { graphKeysSummary, graphOfStore, readGraphKeys, storeTag, SUM_MARK, TAG_MARK } from '../../store/graph-file-sum.js';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { createGraph, dropUnreadableGraph, loadUsearch, writeGraphFiles } from './usearch-graph.js';

const DIMENSIONS = 8;
const SHAPE = { connectivity: 16, expansionAdd: 64, expansionSearch: 64 };
const ROWS = 200;
let folder: string;
let file: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-graph-tag-'));
  file = join(folder, 'vectors-0123456789ab-g2.hnsw');
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Row `rowId`'s vector in store `seed` (two stores hold other vectors under the same row ids). */
function vectorOf(seed: number, rowId: number): Float32Array {
  let state = seed * 7919 + rowId;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
  return Float32Array.from({ length: DIMENSIONS }, next);
}

/** Saves a graph of rows 1..ROWS of store `seed`, as an index does, for `instance`. */
function saveGraph(seed: number, instance: string | undefined): void {
  const graph = createGraph(loadUsearch() as NonNullable<ReturnType<typeof loadUsearch>>, DIMENSIONS, SHAPE);
  const keys = Int32Array.from({ length: ROWS }, (_, index) => index + 1);
  const matrix = new Float32Array(ROWS * DIMENSIONS);
  for (const rowId of keys) matrix.set(vectorOf(seed, rowId), (rowId - 1) * DIMENSIONS);
  graph.add(BigUint64Array.from(keys, BigInt), matrix);
  writeGraphFiles(graph, keys, file, instance);
}

/** An index of store `seed` (its instance id `instance`, once read) holding rows 1..ROWS, its graph made or mapped. */
function indexOf(seed: number, instance: string | undefined): ExactOrGraphVectorIndex {
  const index = new ExactOrGraphVectorIndex(DIMENSIONS, { threshold: 100, ...SHAPE, file, storeInstance: () => instance });
  for (let rowId = 1; rowId <= ROWS; rowId++) index.add(rowId, vectorOf(seed, rowId), { path: `p${rowId}`, language: 'text' });
  index.ensureGraph();
  return index;
}

describe("a graph's key list names the store it was saved for", () => {
  it('reads back the keys, the sum and the store tag; a list saved without an instance has no tag', () => {
    saveGraph(1, 'store-a');
    const list = readGraphKeys(file);
    expect(Array.from(list?.keys ?? [])).toEqual(Array.from({ length: ROWS }, (_, index) => index + 1));
    expect(list?.sum?.bytes).toBe(statSync(file).size);
    expect(list?.store).toBe(storeTag('store-a'));
    expect(graphKeysSummary(file)).toEqual({ keys: ROWS, sum: list?.sum, store: storeTag('store-a') });
    // The sum stays last: a version that knows no tags still checks the graph before usearch reads it.
    const raw = new Int32Array(new Uint8Array(readFileSync(`${file}.keys`)).buffer);
    expect([raw.length, raw[raw.length - 1], raw[raw.length - 5]]).toEqual([ROWS + 7, SUM_MARK, TAG_MARK]);
    saveGraph(1, undefined);
    expect(readGraphKeys(file)?.store).toBeUndefined();
    expect(readGraphKeys(file)?.keys.length).toBe(ROWS);
    expect(graphKeysSummary(file)).toMatchObject({ keys: ROWS, store: undefined });
  });

  it('matches a store by its tag; an unknown side matches any', () => {
    expect(storeTag('store-a')).toMatch(/^[0-9a-f]{16}$/);
    expect(graphOfStore(storeTag('store-a'), 'store-a')).toBe(true);
    expect(graphOfStore(storeTag('store-a'), 'store-b')).toBe(false);
    expect(graphOfStore(undefined, 'store-b')).toBe(true); // saved before tags
    expect(graphOfStore(storeTag('store-a'), undefined)).toBe(true); // a store with no id yet
  });
});

describe('a graph saved for another store at the same path', () => {
  it('is neither mapped nor read: the index builds its own from its rows and saves it over that one', () => {
    saveGraph(1, 'store-a');
    const other = indexOf(2, 'store-b');
    expect([other.usesGraph, other.mapped, other.unsaved]).toEqual([true, false, true]);
    // Its graph is its own: a row's own vector finds that row first.
    expect(other.search(vectorOf(2, 17), 1)[0]?.rowId).toBe(17);
    other.persist();
    expect(readGraphKeys(file)?.store).toBe(storeTag('store-b'));
    // The next process of that store maps what it saved.
    expect(indexOf(2, 'store-b').mapped).toBe(true);
  });

  it("is mapped when it is this store's, was saved before tags, or this store has no id yet", () => {
    saveGraph(1, 'store-a');
    expect(indexOf(1, 'store-a').mapped).toBe(true);
    expect(indexOf(1, undefined).mapped).toBe(true);
    saveGraph(1, undefined);
    expect(indexOf(1, 'store-a').mapped).toBe(true);
  });

  it('is not identified for the graph thread once the store is known', () => {
    saveGraph(1, 'store-a');
    const empty = (instance: string | undefined) => new ExactOrGraphVectorIndex(DIMENSIONS, { threshold: 100, ...SHAPE, file, storeInstance: () => instance });
    expect(empty('store-a').savedGraphFile()?.keys).toBe(ROWS);
    expect(empty('store-b').savedGraphFile()).toBeUndefined();
  });

  it('is deleted before an index run of this store, and kept for its own store', () => {
    saveGraph(1, 'store-a');
    expect(dropUnreadableGraph(file, 'store-a')).toBe(false);
    expect(dropUnreadableGraph(file, 'store-b')).toBe(true);
    expect([existsSync(file), existsSync(`${file}.keys`)]).toEqual([false, false]);
    saveGraph(1, 'store-a');
    writeFileSync(`${file}.other`, 'x'); // nothing else in the folder is touched
    expect(dropUnreadableGraph(file, undefined)).toBe(false);
    expect(existsSync(`${file}.other`)).toBe(true);
  });
});
