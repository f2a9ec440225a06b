import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../../embed/test-support/embedder-contract.js';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { GRAPH_COSINE_SLACK } from './hnsw-options.js';
import { graphQuantization, quantizationFor } from './graph-quantization.js';
import { distinctRandom } from './test-words.js';
import { loadUsearch, writeGraphFiles } from './usearch-graph.js';

const DIMENSIONS = 16;
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-graph-kind-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The scalar type a saved usearch graph keeps its vectors in: a byte of the header that follows the vectors. */
function savedScalarKind(file: string): string {
  const bytes = readFileSync(file);
  const count = bytes.readUInt32LE(0);
  const width = bytes.readUInt32LE(4);
  const head = 8 + count * width;
  expect(bytes.toString('latin1', head, head + 7)).toBe('usearch');
  const kind = bytes[head + 14];
  return kind === 4 ? 'bf16' : kind === 12 ? 'f16' : `kind ${kind}`;
}

function rowsAndQueries(count: number, seed: number) {
  const uniform = distinctRandom(seed);
  const next = () => uniform() * 2 - 1;
  const rows = Array.from({ length: count }, () => Float32Array.from({ length: DIMENSIONS }, next));
  const queries = Array.from({ length: 30 }, () => Float32Array.from({ length: DIMENSIONS }, next));
  return { rows, queries };
}

describe.runIf(loadUsearch() !== null)("the graph's vector copies", () => {
  const options = { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64 };

  it("are saved in graphQuantization()'s type: bf16 on a CPU with AVX-512 BF16", () => {
    const { rows } = rowsAndQueries(300, 5);
    const file = join(folder, 'new.hnsw');
    const index = new ExactOrGraphVectorIndex(DIMENSIONS, { ...options, file });
    rows.forEach((vector, rowId) => index.add(rowId, vector, { path: `src/f${rowId}.ts`, language: 'typescript' }));
    index.ensureGraph();
    index.persist();
    expect(savedScalarKind(file)).toBe(graphQuantization());
    if (existsSync('/proc/cpuinfo')) expect(graphQuantization()).toBe(quantizationFor(readFileSync('/proc/cpuinfo', 'utf8')));
  });

  /** A graph of `rows` saved in `kind` with its key list (f16: as a version before bf16, or a CPU without it, saved it). */
  function savedIn(kind: 'f16' | 'bf16', rows: Float32Array[], file: string): void {
    const usearch = loadUsearch() as NonNullable<ReturnType<typeof loadUsearch>>;
    const older = new usearch.Index({ metric: 'cos', dimensions: DIMENSIONS, connectivity: 16, expansion_add: 64, expansion_search: 64, quantization: kind });
    older.add(
      BigUint64Array.from(rows, (_, rowId) => BigInt(rowId)),
      Float32Array.from(rows.flatMap((vector) => [...vector])),
      1,
    );
    writeGraphFiles(
      older,
      Int32Array.from(rows, (_, rowId) => rowId),
      file,
      undefined,
    );
    expect(savedScalarKind(file)).toBe(kind);
  }

  it.each(['f16', 'bf16'] as const)('of a graph saved in %s (by an older version, or another CPU) are read in it: mapped, walked, every hit scored exactly', (kind) => {
    const { rows, queries } = rowsAndQueries(400, 9);
    const file = join(folder, `saved-${kind}.hnsw`);
    savedIn(kind, rows, file);
    const index = new ExactOrGraphVectorIndex(DIMENSIONS, { ...options, file });
    rows.forEach((vector, rowId) => index.add(rowId, vector, { path: `src/f${rowId}.ts`, language: 'typescript' }));
    index.ensureGraph();
    expect(index.mapped).toBe(true);
    const scan = new ExactOrGraphVectorIndex(DIMENSIONS, { ...options, threshold: 10_000 });
    rows.forEach((vector, rowId) => scan.add(rowId, vector, { path: `src/f${rowId}.ts`, language: 'typescript' }));
    let hits = 0;
    for (const [at, query] of queries.entries()) {
      const found = index.search(query, 10);
      expect(found).toHaveLength(10);
      // f32 cosines, not the graph's 16-bit distances, best first.
      for (const row of found) expect(Math.abs(row.score - cosine(query, rows[row.rowId] as Float32Array))).toBeLessThan(1e-6);
      for (let rank = 1; rank < found.length; rank++) expect((found[rank] as { score: number }).score).toBeLessThanOrEqual((found[rank - 1] as { score: number }).score);
      const truth = new Set(scan.search(query, 10).map((row) => row.rowId));
      hits += found.filter((row) => truth.has(row.rowId)).length;
      // A row's own vector finds it first.
      expect(index.search(rows[at] as Float32Array, 1)[0]?.rowId).toBe(at);
    }
    expect(index.usesGraph).toBe(true);
    expect(index.mapped).toBe(true);
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    // Searching never rewrote it.
    expect(savedScalarKind(file)).toBe(kind);
  });

  it('of a graph saved in f16 stay f16 when it is read into memory, given rows and saved again', () => {
    const { rows, queries } = rowsAndQueries(450, 13);
    const file = join(folder, 'older-read.hnsw');
    savedIn('f16', rows.slice(0, 400), file);
    const index = new ExactOrGraphVectorIndex(DIMENSIONS, { ...options, file });
    rows.forEach((vector, rowId) => index.add(rowId, vector, { path: `src/f${rowId}.ts`, language: 'typescript' }));
    // Read into memory (not mapped): the 50 rows it lacks are put in it between searches.
    index.ensureGraph(false);
    expect(index.mapped).toBe(false);
    expect(index.undrained).toBe(50);
    while (index.drain(1000));
    expect(index.undrained).toBe(0);
    index.persist();
    expect(savedScalarKind(file)).toBe('f16');
    for (const at of [3, 399, 400, 449]) expect(index.search(rows[at] as Float32Array, 1)[0]?.rowId).toBe(at);
    for (const query of queries) {
      for (const row of index.search(query, 10)) expect(Math.abs(row.score - cosine(query, rows[row.rowId] as Float32Array))).toBeLessThan(1e-6);
    }
  });

  it('are within the slack of the exact cosine, in bf16 and in f16', () => {
    const { rows, queries } = rowsAndQueries(2000, 21);
    const usearch = loadUsearch() as NonNullable<ReturnType<typeof loadUsearch>>;
    for (const quantization of ['bf16', 'f16']) {
      const graph = new usearch.Index({ metric: 'cos', dimensions: DIMENSIONS, connectivity: 16, expansion_add: 64, expansion_search: 64, quantization });
      graph.add(
        BigUint64Array.from(rows, (_, rowId) => BigInt(rowId)),
        Float32Array.from(rows.flatMap((vector) => [...vector])),
        1,
      );
      let gap = 0;
      for (const query of queries) {
        const { keys, distances } = graph.search(query, 200, 1);
        keys.forEach((key, at) => {
          gap = Math.max(gap, Math.abs(1 - (distances[at] as number) - cosine(query, rows[Number(key)] as Float32Array)));
        });
      }
      expect(gap).toBeGreaterThan(0);
      expect(gap).toBeLessThan(GRAPH_COSINE_SLACK / 4);
    }
  });

  it("cover bf16's worst case: a pair whose components all round half an ulp apart", () => {
    // p rounds up to 1 + 2^-7 and m down to 1 (bf16 keeps 8 bits): cosine(a, b) is ~0 exactly and 2^-7 in bf16.
    const p = 1 + 2 ** -8 + 2 ** -14;
    const m = 1 + 2 ** -8 - 2 ** -14;
    const a = Float32Array.from({ length: DIMENSIONS }, (_, i) => (i % 2 === 0 ? p : m));
    const b = Float32Array.from({ length: DIMENSIONS }, (_, i) => (i % 2 === 0 ? p : -m));
    const usearch = loadUsearch() as NonNullable<ReturnType<typeof loadUsearch>>;
    const graph = new usearch.Index({ metric: 'cos', dimensions: DIMENSIONS, connectivity: 16, expansion_add: 64, expansion_search: 64, quantization: 'bf16' });
    graph.add(BigUint64Array.from([1n]), b, 1);
    const { distances } = graph.search(a, 1, 1);
    const gap = Math.abs(1 - (distances[0] as number) - cosine(a, b));
    expect(gap).toBeGreaterThan(0.007);
    expect(gap).toBeLessThan(GRAPH_COSINE_SLACK / 2);
  });
});

describe('the type a new graph keeps its copies in', () => {
  it('is bf16 where Linux lists AVX-512 BF16 (x86 avx512_bf16), f16 elsewhere (Arm too: unmeasured)', () => {
    expect(quantizationFor('processor\t: 0\nflags\t\t: fpu sse2 avx2 f16c avx512f avx512_bf16 avx512_vnni\n')).toBe('bf16');
    expect(quantizationFor('processor\t: 0\nflags\t\t: fpu sse2 avx2 f16c avx512f avx512_vnni\n')).toBe('f16');
    expect(quantizationFor('processor\t: 0\nFeatures\t: fp asimd asimdhp bf16 i8mm\n')).toBe('f16');
    expect(quantizationFor('processor\t: 0\nFeatures\t: fp asimd asimdhp\n')).toBe('f16');
    // Not a feature of its own: only the whole name counts.
    expect(quantizationFor('flags\t\t: amx_bf16 avx512_bf16x\n')).toBe('f16');
    // A line whose key only ends in `flags` (Intel's `vmx flags`) is not the features line.
    expect(quantizationFor('vmx flags\t: avx512_bf16\nflags\t\t: fpu avx2\n')).toBe('f16');
    expect(quantizationFor('')).toBe('f16');
  });
});
