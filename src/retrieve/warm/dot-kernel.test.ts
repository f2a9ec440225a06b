import { describe, expect, it } from 'vitest';
import { DOT_KERNEL_BYTES, KERNEL_MAX_FLOATS, kernelDots, kernelGatherDots } from './dot-kernel.js';
import { compileFilter } from '../../store/filter-match.js';
import { loopDot } from './exact-scan.js';
import { FlatVectorIndex } from './vector-index.js';

/** mulberry32: a seeded generator whose values do not repeat in short cycles (equal vectors would tie). */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** The JavaScript loop's sums (exact-scan.ts's fallback), the reference the kernel must equal. */
function loopDots(matrix: Float32Array, rows: number, dims: number, query: Float32Array): number[] {
  return Array.from({ length: rows }, (_, row) => loopDot(matrix, row * dims, query, dims));
}

describe('the exact scan kernel', () => {
  it('is valid WebAssembly and sums bit for bit as the JavaScript loop does, tails and odd values included', () => {
    const wasm = (globalThis as unknown as { WebAssembly: { validate(bytes: Uint8Array): boolean } }).WebAssembly;
    expect(wasm.validate(DOT_KERNEL_BYTES)).toBe(true);
    const next = random(5);
    for (const dims of [1, 3, 4, 7, 128, 130, 384]) {
      const rows = 300;
      const matrix = Float32Array.from({ length: rows * dims }, (_, at) => (at % 97 === 0 ? -0 : at % 89 === 0 ? 3.4e38 * (next() - 0.5) : next() - 0.5));
      const query = Float32Array.from({ length: dims }, () => next() * 2 - 1);
      const dots = kernelDots(matrix, rows, dims, query, 1);
      expect(dots).toBeDefined();
      const expected = loopDots(matrix, rows, dims, query);
      for (let row = 0; row < rows; row++) expect(Object.is(dots?.[row], expected[row]), `dims ${dims} row ${row}`).toBe(true);
    }
  });

  it('copies the matrix again when its version, identity or shape changes, and declines what it would copy too much of', () => {
    const matrix = Float32Array.of(1, 0, 0, 1);
    const query = Float32Array.of(2, 3);
    expect([...(kernelDots(matrix, 2, 2, query, 7) ?? [])]).toEqual([2, 3]);
    matrix[0] = 5; // written, version bumped: read again
    expect([...(kernelDots(matrix, 2, 2, query, 8) ?? [])]).toEqual([10, 3]);
    expect([...(kernelDots(Float32Array.of(0, 1, 1, 0), 2, 2, query, 8) ?? [])]).toEqual([3, 2]); // another matrix, same version
    expect([...(kernelDots(matrix, 1, 2, query, 8) ?? [])]).toEqual([10]); // fewer rows
    expect(kernelDots(new Float32Array(KERNEL_MAX_FLOATS + 4), KERNEL_MAX_FLOATS / 4 + 1, 4, new Float32Array(4), 0)).toBeUndefined();
    expect(kernelDots(matrix, 2, 2, Float32Array.of(1), 8)).toBeUndefined(); // a query of another length
  });

  it("gathers scattered rows and sums them as the JavaScript loop does, without disturbing the scan kernel's copy", () => {
    const next = random(11);
    const dims = 384;
    const rows = 1000;
    const matrix = Float32Array.from({ length: rows * dims }, () => next() - 0.5);
    const query = Float32Array.from({ length: dims }, () => next() * 2 - 1);
    const scanned = [...(kernelDots(matrix, rows, dims, query, 3) ?? [])];
    const slots = [999, 0, 500, 500, 17, 998];
    const dots = kernelGatherDots(matrix, slots, slots.length, dims, query);
    expect(dots).toBeDefined();
    slots.forEach((slot, at) => expect(Object.is(dots?.[at], loopDot(matrix, slot * dims, query, dims)), `slot ${slot}`).toBe(true));
    // The scan kernel's copy of the matrix is still its own (same version: not copied again, still right).
    expect([...(kernelDots(matrix, rows, dims, query, 3) ?? [])]).toEqual(scanned);
    expect(kernelGatherDots(matrix, [rows], 1, dims, query)).toBeUndefined(); // a slot past the matrix
    expect(kernelGatherDots(matrix, [-1], 1, dims, query)).toBeUndefined();
    expect(kernelGatherDots(matrix, [0], 1, dims, Float32Array.of(1))).toBeUndefined(); // a query of another length
    const tooMany = Math.floor(KERNEL_MAX_FLOATS / dims) + 1;
    expect(kernelGatherDots(matrix, new Array<number>(tooMany).fill(0), tooMany, dims, query)).toBeUndefined();
  });

  it("scores a graph's candidates with the kernel's sums, as an exact scan ranks them", () => {
    const next = random(13);
    const dims = 64;
    const index = new FlatVectorIndex(dims, 8);
    for (let rowId = 0; rowId < 300; rowId++)
      index.add(
        rowId,
        Float32Array.from({ length: dims }, () => next() - 0.5),
        { path: `f${rowId}.ts`, language: 'typescript' },
      );
    const query = Float32Array.from({ length: dims }, () => next() - 0.5);
    let norm = 0;
    for (const value of query) norm += value * value;
    const unit = query.map((value) => value / Math.sqrt(norm));
    const exact = new Map(index.search(query, 300).map((row) => [row.rowId, row.score]));
    const candidates = BigUint64Array.from([7n, 250n, 3n, 299n, 1000n]); // 1000: not held, skipped
    const scored = index.scoreRows(candidates, unit, undefined);
    expect(scored.map((row) => row.rowId)).toEqual([7, 250, 3, 299]);
    for (const row of scored) {
      expect(Object.is(row.score, loopDot(index.vectorOf(row.rowId) as Float32Array, 0, unit, dims))).toBe(true);
      expect(row.score).toBeCloseTo(exact.get(row.rowId) as number, 7); // the scan scales the raw query's dot product (f64), this dots an f32 unit query
    }
  });

  it('leaves an exact vector search exact through adds, replacements and removals', () => {
    const next = random(9);
    const dims = 16;
    const index = new FlatVectorIndex(dims, 4); // small: grows (a new matrix) as rows come
    const reference = new Map<number, Float32Array>();
    const vector = () => Float32Array.from({ length: dims }, () => next() - 0.5);
    const unit = (values: Float32Array) => {
      const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
      return values.map((value) => value / norm);
    };
    for (let round = 0; round < 6; round++) {
      for (let row = 0; row < 40; row++) {
        const rowId = Math.floor(next() * 150);
        const values = vector();
        index.add(rowId, values, { path: `${rowId % 2 === 0 ? 'a' : 'b'}/f${rowId}.ts`, language: 'typescript' });
        reference.set(rowId, unit(values));
      }
      for (let gone = 0; gone < 5; gone++) {
        const rowId = Math.floor(next() * 150);
        index.remove(rowId);
        reference.delete(rowId);
      }
      const query = vector();
      const found = index.search(query, 10);
      const q = unit(query);
      const best = [...reference]
        .map(([rowId, values]) => ({ rowId, score: values.reduce((sum, value, at) => sum + value * (q[at] as number), 0) }))
        .sort((a, b) => b.score - a.score || a.rowId - b.rowId);
      expect(found.map((row) => row.rowId)).toEqual(best.slice(0, 10).map((row) => row.rowId));
      for (const [at, row] of found.entries()) expect(row.score).toBeCloseTo((best[at] as { score: number }).score, 5);
    }
    // A folder filter scans the folder's packed rows (a copy made on first use, dropped when the folder changes).
    for (let round = 0; round < 3; round++) {
      const query = vector();
      const q = unit(query);
      const inA = [...reference].filter(([rowId]) => rowId % 2 === 0);
      const best = inA.map(([rowId, values]) => ({ rowId, score: values.reduce((sum, value, at) => sum + value * (q[at] as number), 0) })).sort((a, b) => b.score - a.score || a.rowId - b.rowId);
      expect(index.search(query, 5, compileFilter({ pathPrefixes: ['a/'] })).map((row) => row.rowId)).toEqual(best.slice(0, 5).map((row) => row.rowId));
      const rowId = (inA[round] as [number, Float32Array])[0];
      index.add(rowId, query, { path: `a/f${rowId}.ts`, language: 'typescript' }); // now the best in a/
      reference.set(rowId, q);
      expect(index.search(query, 1, compileFilter({ pathPrefixes: ['a/'] }))[0]?.rowId).toBe(rowId);
    }
    // Replacing the best row's vector reuses its slot: same matrix, same row count, new contents.
    const query = vector();
    const [first] = index.search(query, 1);
    index.add(
      first?.rowId as number,
      query.map((value) => -value),
      { path: 'f.ts', language: 'typescript' },
    );
    expect(index.search(query, 1)[0]?.rowId).not.toBe(first?.rowId);
    expect(
      index.search(
        query.map((value) => -value),
        1,
      )[0],
    ).toMatchObject({ rowId: first?.rowId });
  });
});
