import { appendFileSync, truncateSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';

// The index's reads of a graph's key list, counted (the rest of node:fs is the real one).
const reads = vi.hoisted(() => ({ keys: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((path: Parameters<typeof fs.readFileSync>[0], ...rest: unknown[]) => {
    if (String(path).endsWith('.keys')) reads.keys++;
    return (fs.readFileSync as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readFileSync;
  return { ...fs, readFileSync, default: { ...fs, readFileSync } };
});

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-map-saved-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('mapping a saved graph', () => {
  it('tries files it could not map once, until they change', () => {
    const dimensions = 16;
    let state = 7;
    const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
    const file = join(folder, 'vectors.hnsw');
    const index = new ExactOrGraphVectorIndex(dimensions, { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64, file });
    for (let rowId = 0; rowId < 300; rowId++) index.add(rowId, Float32Array.from({ length: dimensions }, next), { path: `src/f${rowId}.ts`, language: 'typescript' });
    index.ensureGraph();
    index.persist();
    // A key list that cannot be this graph's (not whole 4-byte keys): the graph stays in memory.
    const keys = `${file}.keys`;
    const size = statSync(keys).size;
    appendFileSync(keys, Buffer.from([1, 2]));
    reads.keys = 0;
    expect(index.mapSavedGraph()).toBe(false);
    expect(reads.keys).toBe(1);
    // Each later save of an unchanged graph asked again: the same files are not read again.
    expect(index.mapSavedGraph()).toBe(false);
    expect(index.mapSavedGraph()).toBe(false);
    expect(reads.keys).toBe(1);
    expect(index.mapped).toBe(false);
    expect(index.search(Float32Array.from({ length: dimensions }, next), 5)).toHaveLength(5);
    // The key list mended (a new size): tried again, and mapped.
    truncateSync(keys, size);
    expect(index.mapSavedGraph()).toBe(true);
    expect(reads.keys).toBe(2);
    expect(index.mapped).toBe(true);
  });
});
