import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, rmSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { createGraph, dropUnreadableGraph, loadUsearch, writeGraphFiles } from './usearch-graph.js';

const DIMENSIONS = 8;
let folder: string;
let file: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-drop-graph-'));
  file = join(folder, 'vectors-0123456789ab-g2.hnsw');
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A saved graph of 200 rows, as an index saves one (graph, then its key list with the graph's sum). */
function saveGraph(): void {
  const graph = createGraph(loadUsearch() as NonNullable<ReturnType<typeof loadUsearch>>, DIMENSIONS, { connectivity: 16, expansionAdd: 64, expansionSearch: 64 });
  let state = 3;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
  const keys = Int32Array.from({ length: 200 }, (_, index) => index + 1);
  graph.add(BigUint64Array.from(keys, BigInt), Float32Array.from({ length: keys.length * DIMENSIONS }, next));
  writeGraphFiles(graph, keys, file, undefined);
}

const both = () => [existsSync(file), existsSync(`${file}.keys`)];

/** Flips one byte at `at` (the size stays). */
function flip(path: string, at: number): void {
  const fd = openSync(path, 'r+');
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, at);
  byte[0] = (byte[0] as number) ^ 0xff;
  writeSync(fd, byte, 0, 1, at);
  closeSync(fd);
}

describe('a saved graph before an index run', () => {
  it('keeps a readable graph, and reads it once until either file changes', () => {
    saveGraph();
    const second = 1_700_000_000; // a whole second, which a later utimes restores exactly
    utimesSync(file, second, second);
    expect(dropUnreadableGraph(file, undefined)).toBe(false);
    expect(both()).toEqual([true, true]);
    // Damaged behind the check's back, its size and time kept: not read again, so kept.
    flip(file, 600);
    utimesSync(file, second, second);
    expect(dropUnreadableGraph(file, undefined)).toBe(false);
    // Its time changed too: read again, and dropped.
    utimesSync(file, second, second + 5);
    expect(dropUnreadableGraph(file, undefined)).toBe(true);
    expect(both()).toEqual([false, false]);
  });

  it('drops a graph damaged in the middle, which only its checksum tells', () => {
    saveGraph();
    flip(file, 1_000);
    expect(dropUnreadableGraph(file, undefined)).toBe(true);
    expect(both()).toEqual([false, false]);
  });

  it('drops either file without the other, a cut key list and an empty one', () => {
    saveGraph();
    rmSync(`${file}.keys`);
    expect(dropUnreadableGraph(file, undefined)).toBe(true);
    expect(both()).toEqual([false, false]);

    saveGraph();
    rmSync(file);
    expect(dropUnreadableGraph(file, undefined)).toBe(true);
    expect(both()).toEqual([false, false]);

    saveGraph();
    truncateSync(`${file}.keys`, 30);
    expect(dropUnreadableGraph(file, undefined)).toBe(true);
    expect(both()).toEqual([false, false]);

    saveGraph();
    writeFileSync(`${file}.keys`, Buffer.alloc(0));
    expect(dropUnreadableGraph(file, undefined)).toBe(true);
    expect(both()).toEqual([false, false]);
  });

  it('keeps a graph whose key list was saved before sums (nothing to check it against), and has nothing to do without files', () => {
    saveGraph();
    writeFileSync(`${file}.keys`, Buffer.from(Int32Array.from({ length: 200 }, (_, index) => index + 1).buffer));
    expect(dropUnreadableGraph(file, undefined)).toBe(false);
    expect(both()).toEqual([true, true]);
    expect(dropUnreadableGraph(join(folder, 'none.hnsw'), undefined)).toBe(false);
  });
});

describe('an index that builds no graph (a one-shot process)', () => {
  const index = (withFile: boolean) => {
    const made = new ExactOrGraphVectorIndex(DIMENSIONS, { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64, build: false, ...(withFile ? { file } : {}) });
    let state = 9;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
    for (let rowId = 1; rowId <= 200; rowId++) made.add(rowId, Float32Array.from({ length: DIMENSIONS }, next), { path: `p${rowId}`, language: 'text' });
    made.ensureGraph();
    return made;
  };

  it('lacks a saved graph when its file is missing or damaged, not when it was given none or reads one', () => {
    expect(index(true).lacksSavedGraph).toBe(true); // missing
    expect(index(false).lacksSavedGraph).toBe(false); // a store given as an object: no graph file at all
    saveGraph();
    expect(index(true).lacksSavedGraph).toBe(false);
    flip(file, 1_000);
    const damaged = index(true);
    expect(damaged.usesGraph).toBe(true); // identified; the damage shows at its first walk
    damaged.search(
      Float32Array.from({ length: DIMENSIONS }, () => 0.1),
      5,
    );
    expect([damaged.usesGraph, damaged.lacksSavedGraph]).toEqual([false, true]);
  });
});

describe('saving a graph', () => {
  const temporary = () =>
    readdirSync(folder)
      .filter((name) => name.endsWith('.tmp'))
      .sort();

  it('writes through temporary files of its own process, and removes those a killed save left once their process is gone', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const alive = process.ppid;
    for (const name of [`${file}.${dead}.abc123.tmp`, `${file}.keys.${dead}.abc123.tmp`, `${file}.${alive}.def456.tmp`, `${file}.tmp`]) writeFileSync(name, 'x');
    // This process's pid: one written before it started (an earlier process given the same pid), one since (another thread's save).
    const day = Date.now() / 1000 - 86_400;
    writeFileSync(`${file}.${process.pid}.old111.tmp`, 'x');
    utimesSync(`${file}.${process.pid}.old111.tmp`, day, day);
    writeFileSync(`${file}.${process.pid}.new222.tmp`, 'x');
    saveGraph();
    // The dead process's pair and the earlier process's file are gone; a live save's and an older version's leftover are not this save's to remove.
    expect(temporary()).toEqual([`vectors-0123456789ab-g2.hnsw.${process.pid}.new222.tmp`, `vectors-0123456789ab-g2.hnsw.${alive}.def456.tmp`, 'vectors-0123456789ab-g2.hnsw.tmp'].sort());
    expect(both()).toEqual([true, true]);
    expect(dropUnreadableGraph(file, undefined)).toBe(false); // whole and readable
  });

  it('leaves no temporary file when a save fails', () => {
    mkdirSync(file); // the rename into place fails: a folder holds the name
    expect(() => saveGraph()).toThrow();
    expect(temporary()).toEqual([]);
  });
});
