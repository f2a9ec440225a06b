import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci } from './create-loci.js';
import { openHandles } from '../store/test-support/open-handles.js';

const topics = ['queue', 'flush', 'parser', 'socket', 'cache', 'render', 'schema', 'token'];
const documents = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: `docs/note-${from + index}.md`,
    text: `# ${topics[(from + index) % topics.length]} note ${from + index}\n\nHow the ${topics[(from + index) % topics.length]} handles step ${from + index}.`,
  }));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loci-search-then-index-'));
  const indexer = createLoci({ root: dir, store: join(dir, 'store') });
  await indexer.indexDocuments(documents(0, 40));
  await indexer.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an engine that searched first and then indexes', () => {
  it("keeps answering searches already under way and those made during the run (the search's handle is not closed under them)", async () => {
    const loci = createLoci({ root: dir, store: join(dir, 'store') });
    try {
      // The first search opens the store without creating it; indexing then opens it to create and write.
      expect((await loci.search('queue note')).results.length).toBeGreaterThan(0);
      const inFlight = Array.from({ length: 6 }, (_, index) => loci.search(`${topics[index]} handles step`));
      const run = loci.indexDocuments(documents(40, 20));
      const during = Array.from({ length: 6 }, (_, index) => loci.search(`${topics[index + 1]} note`));
      const settled = await Promise.allSettled([...inFlight, run, ...during]);
      const failures = settled.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason));
      expect(failures).toEqual([]);
      // What the run added is found afterwards, by the same engine.
      const after = await loci.search('render handles step 52');
      expect(after.results.map((result) => result.path)).toContain('docs/note-52.md');
    } finally {
      await loci.close();
    }
    // Both handles (the first search's and the run's) are closed with the engine.
    expect(openHandles(join(dir, 'store', 'index.db'))).toBe(0);
  });
});

describe('an engine whose store changes embedder under it', () => {
  it('retires the index it held for the old embedder when it takes the new one, and closes it with the engine', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-embedder-change-'));
    const store = join(folder, 'store');
    let oldSegment = '';
    try {
      const first = createLoci({ root: folder, store });
      await first.indexDocuments(documents(0, 30));
      const loci = createLoci({ root: folder, store });
      try {
        expect((await loci.search('queue note')).results.length).toBeGreaterThan(0);
        const held = readdirSync(store).filter((name) => name.startsWith('segment'));
        expect(held.length).toBeGreaterThan(0);
        oldSegment = join(store, held[0] as string);
        expect(openHandles(oldSegment)).toBe(1);
        // Another engine re-indexes the store without vectors: the store's embedder is now `none`.
        const other = createLoci({ root: folder, store, embedder: 'none' });
        await other.indexDocuments(documents(0, 30));
        await other.close();
        // The old index answers searches still under way on it: its file stays open a while, then is closed (here: with the engine).
        expect((await loci.search('queue note')).results.length).toBeGreaterThan(0);
      } finally {
        await loci.close();
        await first.close();
      }
      expect(oldSegment).not.toBe('');
      expect(openHandles(oldSegment)).toBe(0);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
