// A saved vector graph damaged on disk, through the built library and CLI (dist/): a one-shot
// search says it scans exactly and why, and the next run, though nothing changed, builds the
// graph again (before, only a run that changed files or a long-lived engine replaced it).
import { execFile } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type EngineModule = typeof import('../../src/engine/create-loci.js');
type UsearchModule = typeof import('../../src/retrieve/warm/usearch-graph.js');

const dist = (path: string) => import(join(process.cwd(), 'dist', path));
const run = promisify(execFile);
const CLI = join(process.cwd(), 'dist', 'interfaces', 'cli', 'main.js');
/** Above the graph threshold (20,000 vectors), so searches want the graph. */
const DOCUMENTS = 21_000;
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'parse', 'json', 'file', 'socket', 'render', 'queue', 'cache', 'token', 'schema', 'effect'];

let folder: string;
let store: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-damaged-graph-'));
  store = join(folder, 'store');
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function indexDocuments(documents: Array<{ id: string; text: string }>): Promise<void> {
  const { createLoci } = (await dist('index.js')) as EngineModule;
  const loci = createLoci({ root: folder, store });
  try {
    await loci.indexDocuments(documents);
  } finally {
    await loci.close();
  }
}

async function search(): Promise<{ results: unknown[]; retrieval: { vectors: string }; warnings: string[] }> {
  const { stdout } = await run(process.execPath, [CLI, 'search', 'parse json socket', '--store', store, '--root', folder, '--mode', 'vector', '--json'], { env: { ...process.env, NO_COLOR: '1' } });
  return JSON.parse(stdout);
}

const graphFile = () => join(store, readdirSync(store).find((name) => /^vectors-[0-9a-f]{12}-g\d+\.hnsw$/.test(name)) as string);

/** One byte flipped in the middle of the graph file: its size is right, its checksum is not. */
function flipByte(): void {
  const fd = openSync(graphFile(), 'r+');
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, 4_000_000);
  byte[0] = (byte[0] as number) ^ 0xff;
  writeSync(fd, byte, 0, 1, 4_000_000);
  closeSync(fd);
}

/** Whether the saved graph holds every document and matches the sum saved with its key list. */
async function graphIntact(): Promise<boolean> {
  const { graphFileIntact, readGraphKeys } = (await dist('retrieve/warm/usearch-graph.js')) as UsearchModule;
  try {
    const list = readGraphKeys(graphFile());
    return list?.keys.length === DOCUMENTS && list.sum !== undefined && graphFileIntact(graphFile(), list.sum);
  } catch {
    return false; // between the worker's two renames, or not there yet
  }
}

describe('a damaged vector graph', () => {
  it('is reported by a one-shot search and built again by the next run, though nothing changed', { timeout: 120_000 }, async () => {
    await indexDocuments(
      Array.from({ length: DOCUMENTS }, (_, index) => ({
        id: `doc-${index}.txt`,
        text: Array.from({ length: 12 }, (_, word) => `${WORDS[(index * 7 + word * 3 + (index >> 4)) % WORDS.length]}${word % 4 === 0 ? index % 101 : ''}`).join(' '),
      })),
    );
    const before = await search();
    expect(before.retrieval.vectors).toBe('graph');
    expect(before.warnings).toEqual([]);

    flipByte();
    const damaged = await search();
    expect(damaged.retrieval.vectors).toBe('exact');
    expect(damaged.results).toHaveLength(before.results.length);
    expect(damaged.warnings).toEqual([expect.stringMatching(/No readable vector graph .*next indexDocuments call\) does/)]);

    await indexDocuments([]);
    expect(await graphIntact()).toBe(true);
    const repaired = await search();
    expect(repaired.retrieval.vectors).toBe('graph');
    expect(repaired.warnings).toEqual([]);
  });

  it('is built again on the graph worker of a long-lived engine, which answers exactly meanwhile', { timeout: 120_000 }, async () => {
    flipByte();
    const { createLoci } = (await dist('index.js')) as EngineModule;
    const loci = createLoci({ root: folder, store });
    try {
      const first = await loci.search('parse json socket', { mode: 'vector' });
      expect(first.retrieval.vectors).toBe('exact');
      expect(first.warnings).toEqual([expect.stringMatching(/No readable vector graph/)]);
      // The file is saved while the engine is open (a graph built on the searching thread was saved only at close).
      const until = Date.now() + 90_000;
      let searches = 0;
      while (!(await graphIntact()) && Date.now() < until && searches < 2_000) {
        expect((await loci.search('parse json socket', { mode: 'vector' })).results.length).toBeGreaterThan(0);
        searches++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await graphIntact()).toBe(true);
      // Mapped at the first search after the worker's report reaches this thread (the file is whole on disk a moment before).
      let later = await loci.search('parse json socket', { mode: 'vector' });
      for (let tries = 0; tries < 100 && later.retrieval.vectors !== 'graph'; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        later = await loci.search('parse json socket', { mode: 'vector' });
      }
      expect(later.retrieval.vectors).toBe('graph');
      expect(later.warnings).toEqual([]);
    } finally {
      await loci.close();
    }
  });
});
