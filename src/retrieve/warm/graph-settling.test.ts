import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusteredVectors } from './test-words.js';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { FlatVectorIndex } from './vector-index.js';
import { readGraphKeys } from './usearch-graph.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-graph-settling-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('a mapped graph whose changes passed its bounds (dropped, then mapped or read again)', () => {
  const dimensions = 32;
  const vectors = clusteredVectors(2400, dimensions, 11);
  const queries = clusteredVectors(30, dimensions, 12);
  const meta = (rowId: number) => ({ path: `file${rowId}.ts`, language: 'go' });
  // Long enough that a loaded machine does not pass it between a change and the next line.
  const QUIET = 1_000;
  // One thread: usearch's concurrent add can leave a node no search reaches (see exact-or-graph-vector-index.test.ts).
  const options = (name: string, more: Partial<ConstructorParameters<typeof ExactOrGraphVectorIndex>[1]> = {}) => ({
    threshold: 100,
    connectivity: 16,
    expansionAdd: 64,
    expansionSearch: 128,
    addThreads: 1,
    viewDelta: 40,
    settleQuietMs: QUIET,
    file: join(folder, name),
    ...more,
  });
  /** An index of `rows`, its graph mapped from `name` (saved first by another index of the same rows). */
  const mappedOver = (name: string, rows: Iterable<number>, more: Partial<ConstructorParameters<typeof ExactOrGraphVectorIndex>[1]> = {}) => {
    const list = [...rows];
    const writer = new ExactOrGraphVectorIndex(dimensions, options(name));
    for (const rowId of list) writer.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    writer.ensureGraph();
    writer.persist();
    const index = new ExactOrGraphVectorIndex(dimensions, options(name, more));
    for (const rowId of list) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    index.ensureGraph();
    expect(index.mapped).toBe(true);
    return index;
  };
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);
  /** What another process does: catches up with the same rows and saves the graph. */
  const savedBy = (name: string, rows: Iterable<number>) => {
    const other = new ExactOrGraphVectorIndex(dimensions, options(name));
    for (const rowId of rows) other.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    other.ensureGraph();
    other.persist();
  };
  const sorted = (rows: Iterable<number>) => [...rows].sort((a, b) => a - b);
  const savedKeys = (name: string) => sorted(readGraphKeys(options(name).file)?.keys ?? []);
  const exactOf = (rows: Iterable<number>) => {
    const exact = new FlatVectorIndex(dimensions);
    for (const rowId of rows) exact.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    return exact;
  };
  const live = [...range(0, 1000).filter((rowId) => rowId % 9 !== 0), ...range(1000, 1300)];
  /** Rows 1000…1299 added and every ninth row below 1000 removed: far past viewDelta either way. */
  const change = (index: ExactOrGraphVectorIndex) => {
    for (const rowId of range(1000, 1300)) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    for (let rowId = 0; rowId < 1000; rowId += 9) index.remove(rowId);
  };

  it('is dropped, not read into memory: searches are exact meanwhile, and after a quiet time the file is read and reconciled', async () => {
    const index = mappedOver('quiet.hnsw', range(0, 1000));
    change(index);
    index.ensureGraph(); // changes just now: still exact
    expect(index.mapped).toBe(false);
    expect(index.usesGraph).toBe(false);
    expect(index.unsaved).toBe(true);
    const exact = exactOf(live);
    for (const query of queries) expect(index.search(query, 10)).toEqual(exact.search(query, 10));
    await sleep(QUIET + 40);
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    expect(index.mapped).toBe(false);
    // Read and reconciled: removed rows never come back, added ones are found (beside it until drained, then in it).
    for (let round = 0; round < 2; round++) {
      for (const rowId of [9, 18, 900]) expect(index.search(vectors[rowId] as Float32Array, 10).map((row) => row.rowId)).not.toContain(rowId);
      for (const rowId of [1000, 1150, 1299]) expect(index.search(vectors[rowId] as Float32Array, 1)[0]?.rowId).toBe(rowId);
      while (index.drain(Number.POSITIVE_INFINITY));
    }
    index.persist();
    expect(savedKeys('quiet.hnsw')).toEqual(sorted(live));
  });

  it('maps a file that another process saved since, once it fits the rows, without waiting for quiet', () => {
    const index = mappedOver('other.hnsw', range(0, 1000), { settleQuietMs: 60_000 });
    change(index);
    expect(index.usesGraph).toBe(false);
    // The other process saved its graph before this index read its last rows: it does not fit yet, and is not given up on.
    savedBy('other.hnsw', [...live, ...range(1300, 1400)]);
    index.ensureGraph();
    expect(index.usesGraph).toBe(false);
    for (const rowId of range(1300, 1400)) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    index.ensureGraph();
    expect(index.mapped).toBe(true);
    expect(index.unsaved).toBe(false);
    const exact = exactOf([...live, ...range(1300, 1400)]);
    let overlap = 0;
    for (const query of queries) {
      const want = new Set(exact.search(query, 10).map((row) => row.rowId));
      overlap += index.search(query, 10).filter((row) => want.has(row.rowId)).length;
    }
    expect(overlap / (queries.length * 10)).toBeGreaterThan(0.9);
  });

  it('a save meanwhile makes the graph again and writes it, holding the live rows', () => {
    const index = mappedOver('save.hnsw', range(0, 1000), { settleQuietMs: 60_000 });
    change(index);
    index.persist();
    expect(savedKeys('save.hnsw')).toEqual(sorted(live));
    expect(index.unsaved).toBe(false);
    expect(index.mapSavedGraph()).toBe(true);
    const next = new ExactOrGraphVectorIndex(dimensions, options('save.hnsw'));
    for (const rowId of live) next.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    next.ensureGraph();
    expect(next.mapped).toBe(true);
  });

  it('a row of the dropped file given another vector meanwhile gets a new node when the file is read', async () => {
    const index = mappedOver('moved.hnsw', range(0, 1000));
    change(index);
    // Row 500 (in the file) now holds row 2000's vector; row 2000 itself is never added.
    index.add(500, vectors[2000] as Float32Array, meta(500));
    await sleep(QUIET + 40);
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    while (index.drain(Number.POSITIVE_INFINITY));
    expect(index.search(vectors[2000] as Float32Array, 1)[0]?.rowId).toBe(500);
    const best = index.search(vectors[2000] as Float32Array, 1)[0];
    expect(best?.score).toBeCloseTo(1, 5);
  });

  it('an index that builds no graph (memory, a one-shot search) is not reported as lacking a saved one while it settles, and reads the file afterwards', async () => {
    const index = mappedOver('nobuild.hnsw', range(0, 1000), { build: false });
    change(index);
    expect(index.usesGraph).toBe(false);
    expect(index.lacksSavedGraph).toBe(false); // searches carry no "no saved graph" warning meanwhile
    await sleep(QUIET + 40);
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    for (const rowId of [1000, 1299]) expect(index.search(vectors[rowId] as Float32Array, 1)[0]?.rowId).toBe(rowId);
  });

  it('maps a file the writer saved before this index read its rows (the file is newer than the one mapped, not than the drop)', () => {
    const index = mappedOver('before.hnsw', range(0, 1000), { settleQuietMs: 60_000 });
    savedBy('before.hnsw', live);
    change(index);
    expect(index.usesGraph).toBe(false);
    index.ensureGraph(); // the catch-up's end
    expect(index.mapped).toBe(true);
    expect(index.unsaved).toBe(false);
  });

  it('reads the file at once when the index grows past exactWhileSettling while it waits (its scans would get slow)', () => {
    const index = mappedOver('grown.hnsw', range(0, 1000), { exactWhileSettling: 1_100, settleQuietMs: 60_000 });
    for (const rowId of range(1000, 1050)) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    expect(index.usesGraph).toBe(false); // 1,050 rows: dropped, exact
    for (const rowId of range(1050, 1150)) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    expect(index.usesGraph).toBe(true); // past 1,100: read, the rows beside it drained later
    expect(index.undrained).toBeGreaterThan(0);
    for (const rowId of [1000, 1149]) expect(index.search(vectors[rowId] as Float32Array, 1)[0]?.rowId).toBe(rowId);
  });

  it('a file read after many changes takes the rows it lacks by draining, never all at once on the searching thread', async () => {
    const index = mappedOver('many.hnsw', range(0, 1000), { exactWhileSettling: 100_000 });
    // More rows than a fresh read would leave to drain (DRAINED_AT_MOST, 65,536): before, they were added in one call.
    for (let rowId = 1000; rowId < 67_000; rowId++) index.add(rowId, vectors[rowId % 2400] as Float32Array, meta(rowId));
    await sleep(QUIET + 40);
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    expect(index.undrained).toBeGreaterThan(65_536);
    expect(index.search(vectors[1500] as Float32Array, 3).map((row) => row.rowId)).toEqual(expect.arrayContaining([1500]));
  });

  it('above exactWhileSettling rows the file is read into memory at once, as before', () => {
    const index = mappedOver('large.hnsw', range(0, 1000), { exactWhileSettling: 500 });
    change(index);
    expect(index.usesGraph).toBe(true);
    expect(index.mapped).toBe(false);
    expect(index.unsaved).toBe(true);
  });
});
