import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusteredVectors, random as seeded } from './test-words.js';
import type { ScoredRow } from '../../store/spec.js';
import { compileFilter } from '../../store/filter-match.js';
import { scoreCandidates, type GraphCandidates } from './graph-candidates.js';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { GRAPH_COSINE_SLACK } from './hnsw-options.js';
import { createGraph, loadUsearch, normalized } from './usearch-graph.js';
import { FlatVectorIndex } from './vector-index.js';

/** Rows best first, ties by row id (the order finish() sorts them in), cut to `limit`. */
const best = (rows: ScoredRow[], limit: number) => [...rows].sort((a, b) => b.score - a.score || a.rowId - b.rowId).slice(0, limit);

/** A flat index stand-in with fixed exact scores, which counts the rows it is asked to score. */
function scoring(exact: Map<number, number>, passes: (rowId: number) => boolean = () => true) {
  const asked: number[] = [];
  return {
    asked,
    flat: {
      scoreRows: (rowIds: ArrayLike<number | bigint>) => {
        const rows: ScoredRow[] = [];
        for (let index = 0; index < rowIds.length; index++) {
          const rowId = Number(rowIds[index]);
          asked.push(rowId);
          if (passes(rowId)) rows.push({ rowId, score: exact.get(rowId) as number, path: '' });
        }
        return rows;
      },
    },
  };
}

const candidates = (cosines: number[]): GraphCandidates => ({
  keys: BigUint64Array.from(cosines, (_, rowId) => BigInt(rowId)),
  distances: Float32Array.from(cosines, (cosine) => 1 - cosine),
});

describe('scoring a graph walk’s candidates', () => {
  it('leaves out only candidates whose graph cosine is below the floor by more than the slack, and keeps a NaN distance', () => {
    // Graph cosines best first; exact scores within the slack of them, one (row 2) enough to change places.
    const cosines = [0.9, 0.8, 0.797, 0.7, 0.5, 0.7961, 0.2, Number.NaN];
    const exact = new Map([
      [0, 0.9],
      [1, 0.8],
      [2, 0.8005],
      [3, 0.7],
      [4, 0.5],
      [5, 0.7991],
      [6, 0.2],
      [7, 0.95],
    ]);
    const { flat, asked } = scoring(exact);
    const rows = scoreCandidates(flat, candidates(cosines), Float32Array.of(1), undefined, 2);
    // The floor after the first two is 0.8: rows 2 and 5 are within the slack of it, row 7's distance is unknown.
    expect(asked).toEqual([0, 1, 2, 5, 7]);
    expect(best(rows, 2).map((row) => row.rowId)).toEqual([7, 0]);
    const all = scoring(exact);
    const every = scoreCandidates(all.flat, { ...candidates(cosines), distances: new Float32Array(0) }, Float32Array.of(1), undefined, 2);
    expect(all.asked).toHaveLength(cosines.length);
    expect(best(rows, 2)).toEqual(best(every, 2));
  });

  it('scores every candidate when fewer than `limit` of the first ones pass the filter (no floor yet)', () => {
    const cosines = [0.9, 0.8, 0.7, 0.1, 0.05];
    const exact = new Map(cosines.map((cosine, rowId) => [rowId, cosine]));
    const { flat, asked } = scoring(exact, (rowId) => rowId !== 1);
    const rows = scoreCandidates(flat, candidates(cosines), Float32Array.of(1), undefined, 2);
    expect(asked).toEqual([0, 1, 2, 3, 4]);
    expect(best(rows, 2).map((row) => row.rowId)).toEqual([0, 2]);
  });

  it('scores every candidate when a score among the first ones is not a number (no floor)', () => {
    const exact = new Map([
      [0, 0.9],
      [5, Number.NaN],
      [2, 0.5],
    ]);
    const { flat, asked } = scoring(exact);
    scoreCandidates(flat, { keys: BigUint64Array.of(0n, 5n, 2n), distances: Float32Array.of(0.1, Number.NaN, 0.5) }, Float32Array.of(1), undefined, 2);
    expect(asked).toEqual([0, 5, 2]);
  });

  it.runIf(loadUsearch() !== null)('keeps the rows and order of scoring every candidate of a real graph (bf16, the default), and scores fewer', () => {
    const dimensions = 48;
    const vectors = clusteredVectors(4000, dimensions, 7);
    const flat = new FlatVectorIndex(dimensions);
    const graph = createGraph(loadUsearch() as NonNullable<ReturnType<typeof loadUsearch>>, dimensions, { connectivity: 16, expansionAdd: 64, expansionSearch: 64 });
    vectors.forEach((vector, rowId) => flat.add(rowId, vector, { path: `f${rowId % 9}.ts`, language: 'go' }));
    graph.add(
      BigUint64Array.from(vectors, (_, rowId) => BigInt(rowId)),
      Float32Array.from(vectors.flatMap((vector) => [...normalized(vector)])),
      1,
    );
    let scored = 0;
    let candidateCount = 0;
    let gap = 0;
    for (const query of clusteredVectors(80, dimensions, 1234)) {
      const unit = normalized(query);
      const found = graph.search(unit, 400, 0);
      for (const limit of [1, 10, 100]) {
        const counted = {
          scoreRows: (ids: ArrayLike<number | bigint>, u: Float32Array, a: undefined) => {
            scored += ids.length;
            return flat.scoreRows(ids, u, a);
          },
        };
        const rows = best(scoreCandidates(counted, found, unit, undefined, limit), limit);
        candidateCount += found.keys.length;
        expect(rows).toEqual(best(flat.scoreRows(found.keys, unit, undefined), limit));
      }
      // The graph's cosines are close to the exact ones, well within the slack.
      for (const row of flat.scoreRows(found.keys, unit, undefined)) gap = Math.max(gap, Math.abs(1 - (found.distances[found.keys.indexOf(BigInt(row.rowId))] as number) - row.score));
      // A filter that rejects some of the first candidates: every candidate is scored, the same rows kept.
      const accept = compileFilter({ pathPrefixes: ['f1'] }) as NonNullable<ReturnType<typeof compileFilter>>;
      expect(best(scoreCandidates(flat, found, unit, accept, 10), 10)).toEqual(best(flat.scoreRows(found.keys, unit, accept), 10));
    }
    expect(gap).toBeLessThan(GRAPH_COSINE_SLACK / 4);
    expect(scored).toBeLessThan(candidateCount / 2);
  });

  it.runIf(loadUsearch() !== null)('a row given a new vector beside a mapped graph is found at its new place once the graph is read into memory', () => {
    const dimensions = 64;
    const uniform = seeded(11);
    const next = () => uniform() * 2 - 1;
    const random = () => normalized(Float32Array.from({ length: dimensions }, next));
    const query = random();
    const other = random();
    // Row 0 close to the query (cosine 0.99), row 1 at 0.5 from it: the graph's two best, far above random rows.
    const along = normalized(Float32Array.from(other, (value, at) => value - query.reduce((sum, q, j) => sum + q * (other[j] as number), 0) * (query[at] as number)));
    const mix = (sign: number, cosine: number) => normalized(Float32Array.from(query, (value, at) => cosine * value + sign * Math.sqrt(1 - cosine * cosine) * (along[at] as number)));
    const file = join(mkdtempSync(join(tmpdir(), 'loci-moved-')), 'moved.hnsw');
    try {
      const meta = (rowId: number) => ({ path: `f${rowId}.ts`, language: 'go' });
      const index = new ExactOrGraphVectorIndex(dimensions, { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64, addThreads: 1, file, viewDelta: 8 });
      index.add(0, mix(1, 0.99), meta(0));
      index.add(1, mix(-1, 0.5), meta(1));
      for (let rowId = 2; rowId < 4_000; rowId++) index.add(rowId, random(), meta(rowId));
      index.ensureGraph();
      index.persist();
      expect(index.mapSavedGraph()).toBe(true);
      // Row 1 becomes the query itself (beside the mapped graph); a second change past the gone-row allowance drops the graph (exact meanwhile)…
      index.add(1, query, meta(1));
      index.add(2, random(), meta(2));
      expect(index.mapped).toBe(false);
      expect(index.usesGraph).toBe(false);
      expect(index.search(query, 1).map((row) => row.rowId)).toEqual([1]);
      // …and a save reads it into memory, row 1 at its new place.
      index.persist();
      expect(index.usesGraph).toBe(true);
      expect(index.search(query, 1).map((row) => row.rowId)).toEqual([1]);
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it.runIf(loadUsearch() !== null)('a row given a new vector in a graph held in memory is found at its new place', () => {
    const dimensions = 32;
    const vectors = clusteredVectors(1500, dimensions, 3);
    const index = new ExactOrGraphVectorIndex(dimensions, { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64, addThreads: 1 });
    vectors.forEach((vector, rowId) => index.add(rowId, vector, { path: `f${rowId}.ts`, language: 'go' }));
    index.ensureGraph();
    expect(index.usesGraph).toBe(true);
    const moved = vectors[1_499] as Float32Array;
    index.add(11, moved, { path: 'f11.ts', language: 'go' });
    const found = index.search(moved, 3).map((row) => row.rowId);
    expect(found).toContain(11);
    expect(found.filter((rowId) => rowId === 11)).toHaveLength(1);
  });
});
