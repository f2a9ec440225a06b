import { appendFileSync, closeSync, existsSync, openSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
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

const DIMENSIONS = 16;
type GraphOptions = ConstructorParameters<typeof ExactOrGraphVectorIndex>[1] & { file: string };

/** `count` seeded rows, a graph of them saved under `name`, and indexes of the same rows (as new processes hold them). */
function savedGraph(name: string, count: number, seed: number) {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const rows = Array.from({ length: count }, () => Float32Array.from({ length: DIMENSIONS }, next));
  const file = join(folder, name);
  const options: GraphOptions = { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64, file };
  const withRows = (settings: GraphOptions = options) => {
    const index = new ExactOrGraphVectorIndex(DIMENSIONS, settings);
    rows.forEach((vector, rowId) => index.add(rowId, vector, { path: `src/f${rowId}.ts`, language: 'typescript' }));
    return index;
  };
  const built = withRows();
  built.ensureGraph();
  built.persist();
  return { rows, file, options, withRows };
}

describe('a saved graph identified, then mapped at its first walk', () => {
  it('is not walked when the file was replaced before that walk: answered exactly, then read again', () => {
    const { rows, file, options, withRows } = savedGraph('replaced.hnsw', 400, 11);
    const index = withRows();
    expect(index.savedGraphFile()?.keys).toBe(rows.length);
    index.ensureGraph();
    expect(index.mapped).toBe(true);
    // Another process saves the graph again (a new file under the same name) before this one walks it.
    const elsewhere = join(folder, 'elsewhere.hnsw');
    const other = withRows({ ...options, file: elsewhere });
    other.ensureGraph();
    other.persist();
    renameSync(elsewhere, file);
    renameSync(`${elsewhere}.keys`, `${file}.keys`);
    // Below its threshold, an index is an exact scan of the same rows.
    const scan = withRows({ ...options, threshold: 10_000, file: join(folder, 'none.hnsw') });
    const query = rows[7] as Float32Array;
    expect(index.search(query, 10)).toEqual(scan.search(query, 10));
    expect(index.mapped).toBe(false);
    expect(index.usesGraph).toBe(false);
    // The next catch-up identifies the new file, and maps it at the next walk.
    index.ensureGraph();
    expect(index.mapped).toBe(true);
    expect(index.search(query, 10)[0]?.rowId).toBe(7);
    expect(index.mapped).toBe(true);
  });

  it('whose key list does not match it is answered exactly, not mapped again, then read and rebuilt', () => {
    const { rows, file, withRows } = savedGraph('mismatched.hnsw', 300, 13);
    // One key more than the graph holds (a row id this index does not hold: counted as gone), before the graph's sum (still right).
    const list = new Int32Array(new Uint8Array(readFileSync(`${file}.keys`)).buffer);
    const longer = Int32Array.from([...list.subarray(0, -4), 5_000, ...list.subarray(-4)]);
    writeFileSync(`${file}.keys`, Buffer.from(longer.buffer));
    const index = withRows();
    index.ensureGraph();
    expect(index.mapped).toBe(true);
    const query = rows[3] as Float32Array;
    const answer = index.search(query, 10);
    expect(answer[0]?.rowId).toBe(3);
    expect(index.usesGraph).toBe(false);
    // Not identified again: read (refused: the files are deleted) and rebuilt from the rows.
    reads.keys = 0;
    index.ensureGraph();
    expect(index.mapped).toBe(false);
    expect(index.usesGraph).toBe(true);
    expect(reads.keys).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(index.search(query, 10)[0]?.rowId).toBe(3);
    // Saved whole again.
    index.persist();
    expect(statSync(`${file}.keys`).size).toBe(rows.length * 4 + 16); // the keys, then the graph's sum
  });

  it('a graph file cut short or overwritten is found damaged before usearch reads it: answered exactly, rebuilt where builds are allowed (it crashed the process)', () => {
    for (const damage of ['cut short', 'overwritten'] as const) {
      const { rows, file, options, withRows } = savedGraph(`damaged-${damage.replace(' ', '-')}.hnsw`, 300, 17);
      const query = rows[9] as Float32Array;
      const size = statSync(file).size;
      if (damage === 'cut short') truncateSync(file, size - 64);
      else {
        // The same size, its middle replaced: only the checksum tells.
        const fd = openSync(file, 'r+');
        writeSync(fd, Buffer.alloc(Math.floor(size / 2), 0xa5), 0, Math.floor(size / 2), Math.floor(size / 4));
        closeSync(fd);
      }
      const index = withRows();
      expect(index.savedGraphFile()?.sum?.bytes).toBe(size);
      index.ensureGraph();
      // Cut short: not identified for mapping (its size is not the one saved), so read and refused at once; overwritten:
      // identified, and refused at the first walk, which is exact. Left in place (another process may be between the renames
      // of its save); the next catch-up builds the graph from the rows, and the next save replaces the file.
      expect(index.mapped).toBe(damage === 'overwritten');
      expect(index.search(query, 10)[0]?.rowId).toBe(9);
      index.ensureGraph();
      expect(index.mapped).toBe(false);
      expect(index.usesGraph).toBe(true);
      expect(index.search(query, 10)[0]?.rowId).toBe(9);
      // A one-shot process (no builds) searches exactly instead, and never reads the file into usearch.
      const oneShot = withRows({ ...options, build: false });
      oneShot.ensureGraph();
      expect(oneShot.search(query, 10)[0]?.rowId).toBe(9);
      oneShot.ensureGraph();
      expect(oneShot.usesGraph).toBe(false);
      // Refused once: its files are not read again at every catch-up until they change.
      const readsBefore = reads.keys;
      oneShot.ensureGraph();
      oneShot.ensureGraph();
      expect(reads.keys).toBe(readsBefore);
      expect(statSync(file).size).toBe(damage === 'cut short' ? size - 64 : size);
      index.persist();
      expect(withRows().savedGraphFile()?.sum?.bytes).toBe(statSync(file).size);
    }
  });

  it('a key list saved before sums (no sum at its end) is read as before, unchecked', () => {
    const { rows, file, withRows } = savedGraph('older.hnsw', 200, 19);
    truncateSync(`${file}.keys`, rows.length * 4);
    const index = withRows();
    expect(index.savedGraphFile()).toMatchObject({ keys: rows.length });
    expect(index.savedGraphFile()?.sum).toBeUndefined();
    index.ensureGraph();
    expect(index.mapped).toBe(true);
    expect(index.search(rows[4] as Float32Array, 10)[0]?.rowId).toBe(4);
    expect(index.mapped).toBe(true);
  });
});
