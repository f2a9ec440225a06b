// A long-lived index reads its segment's postings and vector matrix on a worker thread, driven
// through the built library (dist/): the worker file exists only after the build.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/spec.js';
import { catalogEntry, chunk } from '../../src/store/test-support/store-contract.js';
import { openHandles } from '../../src/store/test-support/open-handles.js';
import { pick, random } from '../../src/retrieve/warm/test-words.js';
import { expectSameAnswers as sameAnswers } from '../../src/retrieve/warm/test-support/same-answers.js';

type WarmModule = typeof import('../../src/retrieve/warm/warm-index.js');
type SegmentModule = typeof import('../../src/retrieve/warm/warm-segment.js');
type PrefetchModule = typeof import('../../src/retrieve/warm/segment-prefetch.js');
type FileModule = typeof import('../../src/store/segment-file.js');
type BuildsModule = typeof import('../../src/retrieve/warm/graph-builds.js');
type WarmIndex = InstanceType<WarmModule['WarmIndex']>;
type SegmentEvent = Parameters<NonNullable<ConstructorParameters<WarmModule['WarmIndex']>[1]['onSegment']>>[0];

const dist = (path: string) => import(join(process.cwd(), 'dist', path));
const weights = { path: 1.5, symbols: 2, heading: 1.5, body: 1 };
const DIMENSIONS = 8;

let folder: string;
let store: Store;
let segment: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-prefetch-'));
  store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
  const { STORE_INSTANCE_STATE } = (await dist('retrieve/warm/warm-segment.js')) as SegmentModule;
  await store.writeState(STORE_INSTANCE_STATE, 'store-a');
  segment = join(folder, 'segment.seg');
});
afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

const options = (extra: Record<string, unknown> = {}) => ({ weights, embedderId: 'e@8', dimensions: DIMENSIONS, segmentFile: segment, ...extra });

/** `files` random files of 1–3 chunks with vectors, saved as a segment; an index built from the rows to compare against. */
async function saved(seed: number, files = 40): Promise<{ WarmIndex: WarmModule['WarmIndex']; reference: WarmIndex }> {
  const { WarmIndex } = (await dist('retrieve/warm/warm-index.js')) as WarmModule;
  const next = random(seed);
  for (let file = 0; file < files; file++) {
    const chunks = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, index) => {
      const words = Array.from({ length: 3 + Math.floor(next() * 40) }, () => pick(next));
      return chunk(`src/a/file${file}.ts`, index * 10 + 1, words.join(' '), { vector: Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5) });
    });
    await store.writeFile({ entry: catalogEntry(`src/a/file${file}.ts`, { embedder: 'e@8' }), chunks });
  }
  await new WarmIndex(store, options()).persist();
  const reference = new WarmIndex(store, { ...options(), segmentFile: undefined });
  await reference.refresh();
  return { WarmIndex, reference };
}

/** The same queries against two indexes (test-support/same-answers.ts). */
const expectSameAnswers = (a: WarmIndex, b: WarmIndex, seed: number) => sameAnswers(a, b, seed, DIMENSIONS);

const until = async (done: () => boolean, what: string) => {
  for (let wait = 0; wait < 250 && !done(); wait++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
};

/**
 * A long-lived index opened on a saved segment, its background read held off (as while a graph
 * is built) until `replace` has put something else at the path: the thread refuses it, and the
 * index reads the rest itself from the file it opened, with the same answers.
 */
async function expectRefusedAfter(seed: number, replace: () => void): Promise<void> {
  const { WarmIndex, reference } = await saved(seed);
  const { graphBuildStarted } = (await dist('retrieve/warm/graph-builds.js')) as BuildsModule;
  const graphFile = join(folder, 'graph.hnsw');
  const release = graphBuildStarted(graphFile);
  const events: SegmentEvent[] = [];
  const warm = new WarmIndex(store, options({ prefetch: true, graphFile, onSegment: (event: SegmentEvent) => events.push(event) }));
  try {
    await warm.refresh();
    replace();
  } finally {
    release();
  }
  await until(() => events.length >= 2, 'the background read');
  expect(events.map((event) => [event.type, event.thread])).toEqual([
    ['segment-loaded', undefined],
    ['segment-prefetched', false],
  ]);
  expectSameAnswers(warm, reference, seed + 1);
  warm.close();
}

describe('the segment read on a worker thread', () => {
  it('hands every posting and the vector matrix to a long-lived index: the same answers, with its own file closed', async () => {
    const { WarmIndex, reference } = await saved(5);
    const events: SegmentEvent[] = [];
    const warm = new WarmIndex(store, options({ prefetch: true, onSegment: (event: SegmentEvent) => events.push(event) }));
    await warm.refresh();
    await until(() => events.length >= 2, 'the background read');
    expect(events.map((event) => [event.type, event.thread])).toEqual([
      ['segment-loaded', undefined],
      ['segment-prefetched', true],
    ]);
    // Nothing is left to read: with the index's file closed, every answer still comes.
    warm.close();
    expectSameAnswers(warm, reference, 6);
    await until(() => openHandles(segment) === 0, 'the thread to close its file');
  });

  it('reports damage in the postings or the vectors it reads, and the index is rebuilt from the store', async () => {
    const { WarmIndex, reference } = await saved(7);
    const { readSegmentHeader } = (await dist('store/segment-file.js')) as FileModule;
    const header = readSegmentHeader(segment);
    if (!header) throw new Error('no segment header');
    const good = readFileSync(segment);
    for (const [end, reason] of [
      [header.postings.offset + header.postings.bytes, /fail their checksum/],
      [header.matrix.offset + header.matrix.bytes, /vectors fail their checksum/],
    ] as const) {
      const damaged = Buffer.from(good);
      damaged.fill(0x7f, end - 8, end);
      writeFileSync(segment, damaged);
      const events: SegmentEvent[] = [];
      const warm = new WarmIndex(store, options({ prefetch: true, onSegment: (event: SegmentEvent) => events.push(event) }));
      await warm.refresh();
      await until(() => events.length >= 2, 'the damage to be found');
      expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
      expect(events[1]?.reason).toMatch(reason);
      await warm.refresh(); // rebuilt from the store
      expectSameAnswers(warm, reference, 8);
      warm.close();
    }
  });

  it('refuses a file replaced at the path since the index opened it; the index reads the rest itself, from the file it opened', async () => {
    await expectRefusedAfter(9, () => {
      // Another file at the path: damaged throughout, so reading it would reset the index.
      const other = join(folder, 'other.seg');
      copyFileSync(segment, other);
      const bytes = readFileSync(other);
      bytes.fill(0x7f, 4096, bytes.length - 64);
      writeFileSync(other, bytes);
      renameSync(other, segment);
    });
  });

  it('stops reading once the index is no longer wanted, and closes its file', async () => {
    await saved(11, 120);
    const { prefetchOnThread } = (await dist('retrieve/warm/segment-prefetch.js')) as PrefetchModule;
    const { SegmentReader } = (await dist('store/segment-file.js')) as FileModule;
    const reader = SegmentReader.open(segment);
    const terms = reader.lexical.postingTerms.length;
    const identity = reader.identity();
    reader.close();
    let ranges = 0;
    let wanted = true;
    let stoppedAt = -1;
    const outcomes: string[] = [];
    const started = prefetchOnThread(
      segment,
      identity,
      {
        postings: () => {
          ranges++;
          wanted = false; // the index was replaced after the first range
        },
        matrix: () => outcomes.push('matrix'),
        current: () => wanted,
        damaged: (error) => outcomes.push(`damaged: ${error.message}`),
        fallback: (reason) => outcomes.push(`fallback: ${reason}`),
        finished: () => outcomes.push('finished'),
        stopped: (at) => {
          stoppedAt = at;
        },
      },
      { batchTerms: 1 },
    );
    expect(started).toBe(true);
    expect(terms).toBeGreaterThan(100);
    await until(() => stoppedAt >= 0 && openHandles(segment) === 0, 'the thread to stop and close its file');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ranges).toBe(1);
    expect(outcomes).toEqual([]);
    expect(stoppedAt).toBeLessThan(terms / 2); // a term a message: it stopped within a few messages of the flag, not at the end
  });

  it('sends a term whose postings exceed the bound as a range of its own, and every other range within its bounds', async () => {
    await saved(13, 120);
    const { prefetchOnThread } = (await dist('retrieve/warm/segment-prefetch.js')) as PrefetchModule;
    const { SegmentReader } = (await dist('store/segment-file.js')) as FileModule;
    const reader = SegmentReader.open(segment);
    const offsets = reader.lexical.postingOffsets;
    const terms = reader.lexical.postingTerms.length;
    const identity = reader.identity();
    reader.close();
    const bytes = (from: number, to: number) => 8 * ((offsets[to] as number) - (offsets[from] as number));
    const ranges: Array<{ from: number; to: number; length: number }> = [];
    let finished = false;
    prefetchOnThread(
      segment,
      identity,
      {
        postings: ({ from, to, buffer }) => ranges.push({ from, to, length: buffer.byteLength }),
        current: () => true,
        damaged: (error) => {
          throw error;
        },
        fallback: (reason) => {
          throw new Error(reason);
        },
        finished: () => {
          finished = true;
        },
      },
      { ownRangeBytes: 400, batchBytes: 4096 },
    );
    await until(() => finished, 'the read');
    expect(ranges[0]?.from).toBe(0);
    expect(ranges.at(-1)?.to).toBe(terms);
    let alone = 0;
    ranges.forEach(({ from, to, length }, at) => {
      if (at > 0) expect(from).toBe(ranges[at - 1]?.to);
      expect(length).toBe(bytes(from, to));
      if (to - from > 1) {
        expect(length).toBeLessThanOrEqual(4096);
        for (let index = from; index < to; index++) expect(bytes(index, index + 1)).toBeLessThanOrEqual(400);
      } else if (length > 400) alone++;
    });
    expect(alone).toBeGreaterThan(0);
  });

  it('refuses a FIFO put at the path at once (its open would wait for a writer), and the index reads the rest itself', async () => {
    if (process.platform !== 'linux') return;
    await expectRefusedAfter(15, () => {
      const fifo = join(folder, 'fifo');
      execFileSync('mkfifo', [fifo]);
      renameSync(fifo, segment);
    });
  });

  it('a thread that gives up while this thread still reads its own part leaves one chain of reads here, and one end', async () => {
    await saved(17);
    const { prefetchInBackground } = (await dist('retrieve/warm/warm-segment.js')) as SegmentModule;
    const { SegmentReader } = (await dist('store/segment-file.js')) as FileModule;
    const reader = SegmentReader.open(segment);
    writeFileSync(`${segment}.other`, 'not a segment');
    renameSync(`${segment}.other`, segment); // the thread refuses it
    const started = performance.now();
    let steps = 0;
    // The lexicon's blocks read a step at a time for 600 ms, ~1 ms a step.
    const lexicon = {
      prefetch: () => {
        steps++;
        const until = performance.now() + 1;
        while (performance.now() < until);
        return performance.now() - started < 600;
      },
    };
    const lexical = { adoptPostings: () => {}, prefetch: () => false };
    const ends: Array<boolean | undefined> = [];
    prefetchInBackground(
      { lexicon: lexicon as never, metas: undefined, segment: { file: segment, reader, onSegment: (event: SegmentEvent) => ends.push(event.thread) } },
      lexical as never,
      undefined,
      () => true,
      (error) => {
        throw error;
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 1200));
    reader.close();
    expect(ends).toEqual([false]);
    expect(steps).toBeLessThan(700); // one chain: two would take twice the steps in the same time
  });
});
