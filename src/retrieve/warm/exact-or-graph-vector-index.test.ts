import { existsSync, statSync, utimesSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusteredVectors } from './test-words.js';
import { defaultHnswOptions, ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { FlatVectorIndex } from './vector-index.js';
import { metaTableOf } from '../../store/segment-format.js';
import { compileFilter } from '../../store/filter-match.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-hnsw-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('HNSW vector index', () => {
  const dimensions = 32;
  const vectors = clusteredVectors(3000, dimensions, 3);
  const queries = clusteredVectors(60, dimensions, 99);
  const meta = (index: number) => ({ path: `dir${index % 3}/file${index}.ts`, language: index % 2 ? 'python' : 'go' });
  /** Every vector in a graph index (its graph built) and in an exact one, to compare against. */
  const graphAndExact = (options: ConstructorParameters<typeof ExactOrGraphVectorIndex>[1]) => {
    const index = new ExactOrGraphVectorIndex(dimensions, options);
    const exact = new FlatVectorIndex(dimensions);
    vectors.forEach((vector, rowId) => {
      index.add(rowId, vector, meta(rowId));
      exact.add(rowId, vector, meta(rowId));
    });
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    return { index, exact };
  };
  /** Options for a graph (built from 100 vectors) saved as `name` in the test folder. */
  // Built on one thread: usearch 2.25's concurrent add can leave a node no search reaches
  // (unum-cloud/USearch#735; in ~1 of 50 builds of these 400–500 rows on 2 cores the exact best
  // match of a query was such a node), which these tests of saving and mapping are not about.
  const savedGraph = (name: string) => ({ threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 128, addThreads: 1, file: join(folder, name) });
  /** An index of rows 0…count−1 with its graph built, loaded or mapped. */
  const withRows = (count: number, options: ConstructorParameters<typeof ExactOrGraphVectorIndex>[1]) => {
    const index = new ExactOrGraphVectorIndex(dimensions, options);
    vectors.slice(0, count).forEach((vector, rowId) => index.add(rowId, vector, meta(rowId)));
    index.ensureGraph();
    return index;
  };

  /** A new index restored from `source`'s snapshot, as from a segment: single rows read (counted), never the whole matrix; its graph mapped or built. */
  const restoredWithoutMatrix = (source: ExactOrGraphVectorIndex, options: ConstructorParameters<typeof ExactOrGraphVectorIndex>[1]) => {
    const metas: Array<{ path: string; language: string }> = [];
    const snapshot = source.snapshot((row) => metas.push(row) - 1);
    const reads = { rows: 0 };
    const restored = new ExactOrGraphVectorIndex(dimensions, options);
    restored.restore({
      rowIds: snapshot.rowIds,
      metaIndex: snapshot.metaIndex,
      metas: metaTableOf(metas),
      matrix: () => {
        throw new Error('the whole matrix was read');
      },
      row: (slot) => {
        reads.rows++;
        return snapshot.matrix.slice(slot * dimensions, (slot + 1) * dimensions);
      },
    });
    restored.ensureGraph();
    return { restored, reads };
  };

  it('matches exact search closely (recall@10 >= 0.95) once past the threshold', () => {
    const options = { threshold: 1000, connectivity: 16, expansionAdd: 128, expansionSearch: 160 };
    const index = new ExactOrGraphVectorIndex(dimensions, options);
    const exact = new FlatVectorIndex(dimensions);
    vectors.forEach((vector, rowId) => {
      index.add(rowId, vector, meta(rowId));
      exact.add(rowId, vector, meta(rowId));
    });
    expect(index.usesGraph).toBe(false);
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    let hits = 0;
    for (const query of queries) {
      const truth = new Set(exact.search(query, 10).map((row) => row.rowId));
      hits += index.search(query, 10).filter((row) => truth.has(row.rowId)).length;
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('with the default layout (bf16, M 24) scores every hit exactly, ordered as an exact scan would', () => {
    const { index, exact } = graphAndExact({ ...defaultHnswOptions, threshold: 1000 });
    let hits = 0;
    for (const query of queries) {
      const truth = new Map(exact.search(query, 3000).map((row) => [row.rowId, row.score]));
      const top = exact.search(query, 10).map((row) => row.rowId);
      const rows = index.search(query, 10);
      for (const row of rows) expect(Math.abs(row.score - (truth.get(row.rowId) as number))).toBeLessThan(1e-6); // f32 cosine, not the graph's bf16 distance
      for (let rank = 1; rank < rows.length; rank++) expect((rows[rank] as { score: number }).score).toBeLessThanOrEqual((rows[rank - 1] as { score: number }).score);
      hits += rows.filter((row) => top.includes(row.rowId)).length;
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('never loses filtered results (falls back to an exact filtered scan)', () => {
    const index = new ExactOrGraphVectorIndex(dimensions, { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64 });
    vectors.forEach((vector, rowId) => index.add(rowId, vector, meta(rowId)));
    index.ensureGraph();
    const rare = (path: string) => path === 'dir1/file7.ts';
    const rows = index.search(queries[0] as Float32Array, 5, rare);
    expect(rows.map((row) => row.path)).toEqual(['dir1/file7.ts']);
  });

  it('a broad filter answered by the graph returns each row with its path, as an exact filtered scan does', () => {
    const { index, exact } = graphAndExact({ threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64 });
    for (const filter of [compileFilter({ languages: ['python'] }), compileFilter({ pathPrefixes: ['dir2/'] })]) {
      if (!filter) throw new Error('no filter');
      // The graph is approximate (and built on every core, so not the same twice): nearly the
      // exact rows over 20 queries (one query's 10 rows swung with a graph built under load).
      let found = 0;
      for (const query of queries.slice(0, 20)) {
        const rows = index.search(query, 10, filter);
        expect(rows).toHaveLength(10);
        for (const row of rows) expect(row.path).toBe(meta(row.rowId).path);
        const truth = new Set(exact.search(query, 10, filter).map((row) => row.rowId));
        found += rows.filter((row) => truth.has(row.rowId)).length;
      }
      expect(found).toBeGreaterThanOrEqual(160);
    }
  });

  it('saves the graph and reconciles rows added and removed since', () => {
    const options = savedGraph('vectors.hnsw');
    const { file } = options;
    const first = withRows(500, options);
    first.persist();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.keys`).mode & 0o777).toBe(0o600);

    // Next process: rows 0..9 were deleted and 500..509 added meanwhile.
    const second = new ExactOrGraphVectorIndex(dimensions, options);
    vectors.slice(10, 510).forEach((vector, offset) => second.add(offset + 10, vector, meta(offset + 10)));
    second.ensureGraph();
    const found = second.search(vectors[505] as Float32Array, 1);
    expect(found[0]?.rowId).toBe(505);
    const ids = new Set(second.search(vectors[3] as Float32Array, 50).map((row) => row.rowId));
    for (let rowId = 0; rowId < 10; rowId++) expect(ids.has(rowId)).toBe(false);
    second.remove(505);
    expect(second.search(vectors[505] as Float32Array, 1)[0]?.rowId).not.toBe(505);
  });

  it('memory-maps a saved graph that holds the live rows, answers as the loaded one, keeps a few changes beside it, and loads it past viewDelta', () => {
    const options = { ...savedGraph('mapped.hnsw'), viewDelta: 20 };
    const open = (count: number) => withRows(count, options);
    const first = open(400);
    expect(first.mapped).toBe(false); // built here
    first.persist();
    const second = open(400);
    expect(second.mapped).toBe(true);
    for (const query of queries.slice(0, 20)) expect(second.search(query, 10)).toEqual(first.search(query, 10));
    // A few changes: still mapped, the new row found (scored beside the graph), the gone one never.
    second.add(400, vectors[400] as Float32Array, meta(400));
    second.remove(3);
    expect(second.mapped).toBe(true);
    expect(second.search(vectors[400] as Float32Array, 1)[0]?.rowId).toBe(400);
    expect(second.search(vectors[3] as Float32Array, 10).map((row) => row.rowId)).not.toContain(3);
    const exact = new FlatVectorIndex(dimensions);
    for (let rowId = 0; rowId <= 400; rowId++) if (rowId !== 3) exact.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    for (const query of queries.slice(0, 20)) {
      const got = second.search(query, 10).map((row) => row.rowId);
      expect(got.filter((rowId) => exact.search(query, 10).some((row) => row.rowId === rowId)).length).toBeGreaterThanOrEqual(9);
    }
    // A new process whose rows differ from the file by a few: mapped, with the delta beside it.
    expect(open(399).mapped).toBe(true);
    expect(open(410).search(vectors[405] as Float32Array, 1)[0]?.rowId).toBe(405);
    // Past viewDelta changes the graph is read into memory (and reconciled).
    for (let rowId = 401; rowId < 430; rowId++) second.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    expect(second.mapped).toBe(false);
    expect(second.search(vectors[425] as Float32Array, 1)[0]?.rowId).toBe(425);
    expect(second.search(vectors[3] as Float32Array, 10).map((row) => row.rowId)).not.toContain(3);
    expect(open(350).mapped).toBe(false); // 50 rows gone: more than viewDelta
    // Gone rows are allowed an eighth of viewDelta (each costs the graph search one more candidate).
    const pruned = open(400);
    pruned.remove(10);
    pruned.remove(11);
    expect(pruned.mapped).toBe(true);
    pruned.remove(12);
    expect(pruned.mapped).toBe(false);
    expect(pruned.search(vectors[11] as Float32Array, 10).map((row) => row.rowId)).not.toContain(11);
  });

  it('a restored index rescores a mapped graph from single rows, without reading the whole matrix', () => {
    const options = savedGraph('restored.hnsw');
    const first = withRows(500, options);
    first.persist();
    const { restored, reads } = restoredWithoutMatrix(first, options);
    expect(restored.mapped).toBe(true);
    for (const query of queries.slice(0, 10)) expect(restored.search(query, 10)).toEqual(first.search(query, 10));
    expect(reads.rows).toBeGreaterThan(0);
  });

  it('a restored index catches up with new and deleted rows without reading the whole matrix, and maps a graph saved with them', () => {
    const options = savedGraph('delta.hnsw');
    const base = withRows(500, options);
    const metas: Array<{ path: string; language: string }> = [];
    const snapshot = base.snapshot((row) => metas.push(row) - 1);
    // What the writer's process saved after its run: the graph with rows 500…519 and without 7 and 8.
    const current = withRows(520, options);
    current.remove(7);
    current.remove(8);
    current.persist();
    let wholeReads = 0;
    const restore = (indexOptions: ConstructorParameters<typeof ExactOrGraphVectorIndex>[1] = options) => {
      const index = new ExactOrGraphVectorIndex(dimensions, indexOptions);
      index.restore({
        rowIds: snapshot.rowIds,
        metaIndex: snapshot.metaIndex,
        metas: metaTableOf(metas),
        matrix: () => {
          wholeReads++;
          return snapshot.matrix.slice();
        },
        row: (slot) => snapshot.matrix.slice(slot * dimensions, (slot + 1) * dimensions),
        matrixReader: () => ({
          step: () => {
            wholeReads++;
            return snapshot.matrix.slice();
          },
        }),
      });
      // A catch-up: the rows after the segment, then its deletions, then the graph.
      for (let rowId = 500; rowId < 520; rowId++) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
      index.remove(7);
      index.remove(8);
      index.ensureGraph();
      return index;
    };
    const caughtUp = restore();
    expect(caughtUp.mapped).toBe(true);
    for (const query of queries.slice(0, 10)) expect(caughtUp.search(query, 10)).toEqual(current.search(query, 10));
    expect(caughtUp.search(vectors[510] as Float32Array, 1)[0]?.rowId).toBe(510);
    expect(wholeReads).toBe(0);
    // Read whole (as a long-lived process does in the background), then more rows: the same
    // rows as an index built row by row, scores equal to float rounding.
    const exact = new FlatVectorIndex(dimensions);
    for (let rowId = 0; rowId < 530; rowId++) if (rowId !== 7 && rowId !== 8) exact.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    const whole = restore({ ...savedGraph('unused.hnsw'), threshold: 10_000 }); // exact: no graph
    whole.prefetchMatrix(1 << 30);
    expect(wholeReads).toBe(1);
    for (let rowId = 520; rowId < 530; rowId++) whole.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    const filter = compileFilter({ pathPrefixes: ['dir1/'] });
    for (const query of queries.slice(0, 5)) {
      for (const accept of [undefined, filter]) {
        const got = whole.search(query, 10, accept);
        const want = exact.search(query, 10, accept);
        expect(got.map((row) => row.rowId)).toEqual(want.map((row) => row.rowId));
        got.forEach((row, index) => expect(row.score).toBeCloseTo(want[index]?.score as number, 6));
      }
    }
    expect(whole.snapshot((row) => metas.push(row) - 1).rowIds.length).toBe(528);
  });

  it('a mapped graph whose nearest rows to a query are gone answers that query exactly, even with rows beside it', () => {
    const options = savedGraph('crowd.hnsw');
    withRows(3_000, options).persist();
    const mapped = withRows(3_000, options);
    const exact = new FlatVectorIndex(dimensions);
    vectors.forEach((vector, rowId) => exact.add(rowId, vector, meta(rowId)));
    const query = vectors[0] as Float32Array;
    // A file on the query's topic deleted (its 150 nearest rows), and an unrelated one added.
    for (const row of exact.search(query, 150)) {
      mapped.remove(row.rowId);
      exact.remove(row.rowId);
    }
    const far = clusteredVectors(12, dimensions, 12_345);
    far.forEach((vector, index) => {
      mapped.add(10_000 + index, vector, meta(10_000 + index));
      exact.add(10_000 + index, vector, meta(10_000 + index));
    });
    expect(mapped.mapped).toBe(true);
    const truth = exact.search(query, 10).map((row) => row.rowId);
    expect(mapped.search(query, 10).filter((row) => truth.includes(row.rowId)).length).toBeGreaterThanOrEqual(9);
  });

  it('a row given a new vector while the graph is mapped is found by it, once; a graph with every key removed is not saved', () => {
    const options = savedGraph('readd.hnsw');
    withRows(400, options).persist();
    const mapped = withRows(400, options);
    const moved = vectors[2_500] as Float32Array;
    mapped.add(7, moved, meta(7));
    expect(mapped.mapped).toBe(true);
    const found = mapped.search(moved, 5).map((row) => row.rowId);
    expect(found[0]).toBe(7);
    expect(found.filter((rowId) => rowId === 7)).toHaveLength(1);
    // Every key removed: nothing saved, and the next process builds (or scans) without a crash.
    const emptied = withRows(150, { ...savedGraph('emptied.hnsw'), viewDelta: 10 });
    emptied.persist();
    for (let rowId = 0; rowId < 150; rowId++) emptied.remove(rowId);
    emptied.persist();
    expect(existsSync(join(folder, 'emptied.hnsw'))).toBe(false);
    const next = new ExactOrGraphVectorIndex(dimensions, { ...savedGraph('emptied.hnsw'), viewDelta: 10 });
    vectors.slice(200, 320).forEach((vector, offset) => next.add(200 + offset, vector, meta(200 + offset)));
    next.ensureGraph();
    expect(next.search(vectors[250] as Float32Array, 1)[0]?.rowId).toBe(250);
  });

  it('rows beside a mapped graph in a new process are read from the segment once, not at every search', () => {
    const options = savedGraph('beside.hnsw');
    withRows(300, options).persist();
    const { restored, reads } = restoredWithoutMatrix(withRows(340, { ...options, file: undefined }), options);
    expect(restored.mapped).toBe(true); // the file lacks rows 300…339: beside it
    expect(restored.search(vectors[320] as Float32Array, 1)[0]?.rowId).toBe(320);
    const afterFirst = reads.rows;
    restored.search(vectors[330] as Float32Array, 10);
    restored.search(vectors[310] as Float32Array, 10);
    expect(reads.rows - afterFirst).toBeLessThan(40); // only graph candidates not read before, none of the 40 beside it
  });

  it('a restored flat index that takes a few rows before its matrix is read allocates little more than it holds', () => {
    const source = new FlatVectorIndex(dimensions);
    vectors.slice(0, 2_000).forEach((vector, rowId) => source.add(rowId, vector, meta(rowId)));
    const metas: Array<{ path: string; language: string }> = [];
    const snapshot = source.snapshot((row) => metas.push(row) - 1);
    const restored = new FlatVectorIndex(dimensions);
    restored.restore({ rowIds: snapshot.rowIds, metaIndex: snapshot.metaIndex, metas: metaTableOf(metas), matrix: () => snapshot.matrix.slice() });
    for (let rowId = 2_000; rowId < 2_010; rowId++) restored.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    expect(restored.search(vectors[2_005] as Float32Array, 1)[0]?.rowId).toBe(2_005); // reads the matrix
    const stored = (restored as unknown as { stored: Float32Array }).stored.length / dimensions;
    expect(stored).toBeGreaterThanOrEqual(2_010);
    expect(stored).toBeLessThanOrEqual(2_010 + Math.max(64, 2_000 / 32));
  });

  it('rewrites the saved graph only when it changed since loaded or saved (a few changes beside a mapped graph are not a change of the file)', () => {
    const options = { ...savedGraph('unchanged.hnsw'), viewDelta: 5 };
    const { file } = options;
    const load = (count: number) => withRows(count, options);
    const first = load(300);
    expect(first.unsaved).toBe(true); // built here: nothing saved yet
    first.persist();
    expect(first.unsaved).toBe(false);
    const saved = statSync(file).mtimeMs;
    utimesSync(file, new Date(1_000_000), new Date(1_000_000));

    const same = load(300); // next process, same rows
    expect(same.unsaved).toBe(false);
    same.persist();
    expect(statSync(file).mtimeMs).toBe(1_000_000);
    same.add(300, vectors[300] as Float32Array, meta(300));
    expect(same.unsaved).toBe(false); // beside the mapped graph
    for (let rowId = 301; rowId < 310; rowId++) same.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    expect(same.unsaved).toBe(true); // past viewDelta: read into memory and grown
    same.persist();
    expect(statSync(file).mtimeMs).toBeGreaterThanOrEqual(saved);

    const grown = load(310); // the file now holds rows 300…309 too
    expect(grown.unsaved).toBe(false);
    grown.remove(7);
    expect(grown.unsaved).toBe(false);
    expect(load(290).unsaved).toBe(true); // 20 rows deleted meanwhile: more than viewDelta, reconciled, so changed
  });

  it('maps its graph once saved, in place of the copy in memory: the same answers, changes beside the file with no rewrite, and mapped again after it is read back', () => {
    const options = { ...savedGraph('map-after-save.hnsw'), viewDelta: 50 };
    const index = new ExactOrGraphVectorIndex(dimensions, options);
    vectors.slice(0, 2000).forEach((vector, rowId) => index.add(rowId, vector, meta(rowId)));
    index.ensureGraph();
    expect(index.mapped).toBe(false);
    expect(index.mapSavedGraph()).toBe(false); // not saved yet: nothing to map
    const before = queries.map((query) => index.search(query, 10));
    index.persist();
    expect(index.mapSavedGraph()).toBe(true);
    expect(index.mapped).toBe(true);
    expect(queries.map((query) => index.search(query, 10))).toEqual(before);
    // A few changes sit beside the mapped file: saving writes nothing.
    const file = options.file;
    utimesSync(file, new Date(1_000_000), new Date(1_000_000));
    const stamp = statSync(file).mtimeMs;
    for (let rowId = 2000; rowId < 2040; rowId++) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    index.remove(3);
    expect(index.mapped).toBe(true);
    expect(index.unsaved).toBe(false);
    index.persist();
    expect(statSync(file).mtimeMs).toBe(stamp);
    expect(index.search(vectors[2030] as Float32Array, 1)[0]?.rowId).toBe(2030);
    expect(index.search(vectors[3] as Float32Array, 10).map((row) => row.rowId)).not.toContain(3);
    // Past viewDelta the graph is read back into memory; once saved, it is mapped again.
    for (let rowId = 2040; rowId < 2100; rowId++) index.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    expect(index.mapped).toBe(false);
    expect(index.unsaved).toBe(true);
    index.persist();
    expect(statSync(file).mtimeMs).not.toBe(stamp);
    expect(index.mapSavedGraph()).toBe(true);
    expect(index.search(vectors[2090] as Float32Array, 1)[0]?.rowId).toBe(2090);
    expect(index.search(vectors[3] as Float32Array, 10).map((row) => row.rowId)).not.toContain(3);
    expect(index.size).toBe(2099);
  });

  it('many rows beside a mapped graph: only their best count, in the one order (score, then row id), ties included', () => {
    const options = { ...savedGraph('beside-many.hnsw'), viewDelta: 500 };
    withRows(1000, options).persist();
    const mapped = withRows(1000, options);
    expect(mapped.mapped).toBe(true);
    // 300 rows beside it, 40 of them copies of one vector (equal scores), added in a shuffled order.
    const copy = vectors[2500] as Float32Array;
    const beside = Array.from({ length: 300 }, (_, index) => 1000 + ((index * 7919) % 300));
    for (const rowId of beside) mapped.add(rowId, rowId % 10 === 0 || rowId >= 1260 ? copy : (vectors[rowId] as Float32Array), meta(rowId));
    expect(mapped.mapped).toBe(true);
    const copies = beside.filter((rowId) => rowId % 10 === 0 || rowId >= 1260).sort((a, b) => a - b);
    expect(copies.length).toBeGreaterThan(25);
    expect(mapped.search(copy, 10).map((row) => row.rowId)).toEqual(copies.slice(0, 10));
    const even = (path: string) => Number(/file(\d+)/.exec(path)?.[1]) % 2 === 0;
    expect(mapped.search(copy, 12, even).map((row) => row.rowId)).toEqual(copies.filter((rowId) => rowId % 2 === 0).slice(0, 12));
    // Against an exact scan of the same rows: the graph's own part may differ (it is a graph), the best rows beside it may not.
    const exact = new FlatVectorIndex(dimensions);
    for (let rowId = 0; rowId < 1000; rowId++) exact.add(rowId, vectors[rowId] as Float32Array, meta(rowId));
    for (const rowId of beside) exact.add(rowId, rowId % 10 === 0 || rowId >= 1260 ? copy : (vectors[rowId] as Float32Array), meta(rowId));
    for (const query of queries.slice(0, 20)) {
      const want = exact
        .search(query, 10)
        .filter((row) => row.rowId >= 1000)
        .map((row) => row.rowId);
      const got = mapped.search(query, 10).map((row) => row.rowId);
      for (const rowId of want) expect(got).toContain(rowId);
    }
  });
});
