import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryTerms } from '../../lexical/tokenize.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/spec.js';
import { catalogEntry, chunk } from '../../store/test-support/store-contract.js';
import { readSegmentHeader, SegmentError, type SegmentHeader, SegmentReader, sortTerms, writeSegment } from '../../store/segment-file.js';
import { type SegmentEvent, WarmIndex, type WarmIndexOptions } from './warm-index.js';
import { STORE_INSTANCE_STATE } from './warm-segment.js';
import { graphBuildStarted } from './graph-builds.js';
import { pick, random, vocabulary } from './test-words.js';
import { openHandles } from '../../store/test-support/open-handles.js';
import { expectSameAnswers as sameAnswers } from './test-support/same-answers.js';

const weights = { path: 1.5, symbols: 2, heading: 1.5, body: 1 };
const DIMENSIONS = 8;

let folder: string;
let store: Store;
let segment: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-segment-'));
  store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
  await store.writeState(STORE_INSTANCE_STATE, 'store-a');
  segment = join(folder, 'segment.seg');
});
afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

/** A file of 1–3 chunks; some with a vector of embedder e@8, some without (attached later, as phase 2 does). */
async function writeRandomFile(next: () => number, path: string, withVectors = true) {
  const chunks = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, index) => {
    const words = Array.from({ length: 3 + Math.floor(next() * 40) }, () => pick(next));
    const vector = Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5);
    return chunk(path, index * 10 + 1, words.join(' '), withVectors ? { vector } : {});
  });
  await store.writeFile({ entry: catalogEntry(path, { embedder: 'e@8' }), chunks });
}

function options(extra: Partial<WarmIndexOptions> = {}): WarmIndexOptions {
  return { weights, embedderId: 'e@8', dimensions: DIMENSIONS, segmentFile: segment, ...extra };
}

/** 30 random files saved as a segment; its header, and an index built from the rows to compare against. */
async function savedWithReference(seed: number): Promise<{ header: SegmentHeader; reference: WarmIndex }> {
  const next = random(seed);
  for (let file = 0; file < 30; file++) await writeRandomFile(next, `src/a/file${file}.ts`);
  await new WarmIndex(store, options()).persist();
  const header = readSegmentHeader(segment);
  if (!header) throw new Error('no segment header');
  const reference = new WarmIndex(store, { ...options(), segmentFile: undefined });
  await reference.refresh();
  return { header, reference };
}

/** A saved segment with its first lexicon block damaged, opened by a new index that reports its events. */
async function openOverDamagedLexicon(seed: number): Promise<{ reference: WarmIndex; warm: WarmIndex; events: SegmentEvent[] }> {
  const { header, reference } = await savedWithReference(seed);
  const damaged = readFileSync(segment);
  damaged.fill(0x7f, header.lexicon.offset, header.lexicon.offset + 8);
  writeFileSync(segment, damaged);
  const events: SegmentEvent[] = [];
  const warm = new WarmIndex(store, options({ onSegment: (event) => events.push(event) }));
  await warm.refresh();
  return { reference, warm, events };
}

/** The 8 bytes before `end` of the segment damaged, then a long-lived index opened on it (its background read not started yet). */
async function openOverDamage(end: number): Promise<{ warm: WarmIndex; events: SegmentEvent[] }> {
  const damaged = readFileSync(segment);
  damaged.fill(0x7f, end - 8, end);
  writeFileSync(segment, damaged);
  const events: SegmentEvent[] = [];
  const warm = new WarmIndex(store, options({ prefetch: true, onSegment: (event) => events.push(event) }));
  await warm.refresh();
  return { warm, events };
}

/** openOverDamage, waited on until its background read rejects the file (or 2 s pass). */
async function damagedInBackground(end: number): Promise<{ warm: WarmIndex; events: SegmentEvent[] }> {
  const { warm, events } = await openOverDamage(end);
  for (let wait = 0; wait < 100 && events.length < 2; wait++) await new Promise((resolve) => setTimeout(resolve, 20));
  return { warm, events };
}

/** The same queries against two indexes (test-support/same-answers.ts). */
const expectSameAnswers = (a: WarmIndex, b: WarmIndex, seed: number) => sameAnswers(a, b, seed, DIMENSIONS);

describe('segment files', () => {
  it('a new index read from the segment, caught up with later writes, rewrites and deletes, answers exactly as one built from rows', async () => {
    const next = random(3);
    for (let file = 0; file < 80; file++) await writeRandomFile(next, `src/${file % 3 === 0 ? 'a' : 'b'}/file${file}.ts`, file % 5 !== 0);
    const events: SegmentEvent[] = [];
    const first = new WarmIndex(store, options({ onSegment: (event) => events.push(event) }));
    await first.persist();
    expect(events.map((event) => event.type)).toEqual(['segment-saved']);
    expect(statSync(segment).mode & 0o777).toBe(0o600);

    // Read back as it is: the same index.
    const loaded = new WarmIndex(store, options({ onSegment: (event) => events.push(event) }));
    await loaded.refresh();
    expect(loaded.fromSegment).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'segment-loaded', rows: first.size });
    const fresh = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await fresh.refresh();
    expectSameAnswers(loaded, fresh, 12);

    // The store moves on without the segment: new files, rewrites, deletes, vectors attached to rows that had none.
    for (let file = 80; file < 100; file++) await writeRandomFile(next, `src/${file % 3 === 0 ? 'a' : 'b'}/file${file}.ts`);
    for (let file = 0; file < 80; file += 7) await writeRandomFile(next, `src/${file % 3 === 0 ? 'a' : 'b'}/file${file}.ts`);
    for (let file = 1; file < 80; file += 6) await store.deleteFile(`src/${file % 3 === 0 ? 'a' : 'b'}/file${file}.ts`);
    const pending = (await store.scanIndexRows({ embedderId: 'e@8' })).filter((row) => row.contentHash);
    expect(pending.length).toBeGreaterThan(0);
    await store.putCachedVectors('e@8', new Map(pending.map((row) => [row.contentHash as string, Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5)])));
    const caughtUp = new WarmIndex(store, options());
    await caughtUp.refresh();
    expect(caughtUp.fromSegment).toBe(true);
    const rebuilt = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await rebuilt.refresh();
    expectSameAnswers(caughtUp, rebuilt, 13);
    // ... and keeps answering right as it takes further writes in memory.
    for (let file = 100; file < 110; file++) await writeRandomFile(next, `src/a/file${file}.ts`);
    await caughtUp.refresh();
    await rebuilt.refresh();
    expectSameAnswers(caughtUp, rebuilt, 14);
    // Saved with removed rows among the live ones (renumbered on the way out), then read back.
    await caughtUp.persist();
    const reloaded = new WarmIndex(store, options());
    await reloaded.refresh();
    expect(reloaded.fromSegment).toBe(true);
    expect(reloaded.size).toBe(rebuilt.size);
    expectSameAnswers(reloaded, rebuilt, 15);
  });

  it("a new process counts no rows when the store's deletion count says nothing was deleted since the segment, and reads only the deleted rows from its log when it moved", async () => {
    const { header, reference } = await savedWithReference(21);
    expect(header.chunkDeletions).toBe(await store.chunkDeletions?.());
    /** The store, counting how often a catch-up asks it to count rows or list every live row (optionally without its deletion log). */
    const counting = (withoutLog = false) => {
      const seen = { calls: 0, liveLists: 0 };
      const proxy = Object.assign(Object.create(store) as Store, {
        countChunks: () => {
          seen.calls++;
          return store.countChunks();
        },
        liveRowIds: () => {
          seen.liveLists++;
          return store.liveRowIds();
        },
        ...(withoutLog ? { deletedRowIds: async () => undefined } : {}),
      });
      return { proxy, seen };
    };
    const quiet = counting();
    const untouched = new WarmIndex(quiet.proxy, options());
    await untouched.refresh();
    expect(untouched.fromSegment).toBe(true);
    expect(quiet.seen.calls).toBe(0);
    expectSameAnswers(untouched, reference, 22);
    // Another writer deletes and rewrites files: the count moved, and the store's log names
    // the rows deleted since, so no row is counted or compared.
    const next = random(23);
    await store.deleteFile('src/a/file3.ts');
    await writeRandomFile(next, 'src/a/file4.ts');
    const moved = counting();
    const caughtUp = new WarmIndex(moved.proxy, options());
    await caughtUp.refresh();
    expect(moved.seen).toEqual({ calls: 0, liveLists: 0 });
    const rebuilt = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await rebuilt.refresh();
    expectSameAnswers(caughtUp, rebuilt, 24);
    // A log that no longer reaches back that far: rows are counted and compared instead.
    const unlogged = counting(true);
    const compared = new WarmIndex(unlogged.proxy, options());
    await compared.refresh();
    expect(unlogged.seen).toEqual({ calls: 1, liveLists: 1 });
    expectSameAnswers(compared, rebuilt, 24);
  });

  it('equal row counts after a deletion do not hide it when rows arrived after the scan (they could stand in for the deleted ones)', async () => {
    const next = random(25);
    for (let file = 0; file < 20; file++) await writeRandomFile(next, `src/a/file${file}.ts`);
    let racing = false;
    // A writer that adds as many rows as were just deleted between the catch-up's scan and its count.
    const racer = Object.assign(Object.create(store) as Store, {
      countChunks: async () => {
        if (racing) {
          racing = false;
          await store.writeFile({ entry: catalogEntry('src/late.ts', { embedder: 'e@8' }), chunks: [chunk('src/late.ts', 1, 'late words here', {}), chunk('src/late.ts', 11, 'more late words', {})] });
        }
        return store.countChunks();
      },
    });
    const warm = new WarmIndex(racer, { ...options(), segmentFile: undefined });
    await warm.refresh();
    await store.writeFile({ entry: catalogEntry('src/gone.ts', { embedder: 'e@8' }), chunks: [chunk('src/gone.ts', 1, 'doomed words', {}), chunk('src/gone.ts', 11, 'doomed too', {})] });
    await warm.refresh();
    await store.deleteFile('src/gone.ts');
    racing = true;
    await warm.refresh(); // counts equal (2 deleted, 2 added after the scan)
    await warm.refresh(); // reads the late rows; the deleted ones must go now
    const rebuilt = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await rebuilt.refresh();
    expect(warm.size).toBe(rebuilt.size);
    expect(warm.searchLexical(['doom'], 10, undefined)).toEqual([]);
    expectSameAnswers(warm, rebuilt, 26);
  });

  it('a damaged, truncated, foreign or stale file is never trusted: the index is rebuilt from the store and the file rewritten', async () => {
    const next = random(5);
    for (let file = 0; file < 30; file++) await writeRandomFile(next, `src/a/file${file}.ts`);
    await new WarmIndex(store, options()).persist();
    const good = readFileSync(segment);
    const reference = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await reference.refresh();

    const attempt = async (bytes: Buffer, reason: RegExp, extra: Partial<WarmIndexOptions> = {}) => {
      writeFileSync(segment, bytes);
      const events: SegmentEvent[] = [];
      const warm = new WarmIndex(store, options({ ...extra, onSegment: (event) => events.push(event) }));
      await warm.refresh();
      expect(warm.fromSegment).toBe(false);
      expect(events[0]).toMatchObject({ type: 'segment-rejected' });
      expect(events[0]?.reason).toMatch(reason);
      if (!extra.weights) expectSameAnswers(warm, reference, 21);
      // Closing rewrites it from what was rebuilt: the next process reads it again.
      warm.saveGraph();
      const again = new WarmIndex(store, options(extra));
      await again.refresh();
      expect(again.fromSegment).toBe(true);
    };
    const header = readSegmentHeader(segment);
    if (!header) throw new Error('no segment header');
    // Damage in what is read at open (the row and term tables): rejected at once.
    const flipped = Buffer.from(good);
    const inTables = Math.floor((header.arrays.termOffsets.offset + header.eagerEnd) / 2);
    flipped[inTables] = (flipped[inTables] as number) ^ 0xff;
    await attempt(flipped, /checksum/);
    await attempt(good.subarray(0, Math.floor(good.length * 0.7)), /truncated/);
    await attempt(Buffer.from('not a segment at all'), /not a loci segment/);
    await attempt(Buffer.from(good), /other field weights/, { weights: { ...weights, body: 2 } });
    expect(() => SegmentReader.open(join(folder, 'index.db'))).toThrow(SegmentError);

    // Damage in what is read on demand (postings, vectors): found by the search that reads
    // it, which rebuilds from the store and answers right; the file is deleted, then rewritten.
    for (const [section, reason] of [
      ['postings', /postings of term \d+ fail their checksum/],
      ['matrix', /vectors fail their checksum/],
    ] as const) {
      const damaged = Buffer.from(good);
      damaged.fill(0x7f, header[section].offset, header[section].offset + header[section].bytes);
      writeFileSync(segment, damaged);
      const events: SegmentEvent[] = [];
      const warm = new WarmIndex(store, options({ onSegment: (event) => events.push(event) }));
      await warm.refresh();
      expect(warm.fromSegment).toBe(true);
      const query = queryTerms(`${vocabulary[0]} ${vocabulary[1]}`);
      const vector = Float32Array.from({ length: DIMENSIONS }, (_, index) => index - 3);
      const lexical = await warm.guard(() => warm.searchLexical(query, 10, undefined));
      const vectors = await warm.guard(() => warm.searchVectors(vector, 10, undefined));
      expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
      expect(events[1]?.reason).toMatch(reason);
      expect(warm.fromSegment).toBe(false);
      expect(lexical).toEqual(reference.searchLexical(query, 10, undefined));
      expect(vectors).toEqual(reference.searchVectors(vector, 10, undefined));
      expect(existsSync(segment)).toBe(false);
      warm.saveGraph();
      expect(SegmentReader.open(segment).header.rows).toBe(reference.size);
    }

    // Another store (the folder's database replaced): same row ids, other rows.
    writeFileSync(segment, good);
    await store.writeState(STORE_INSTANCE_STATE, 'store-b');
    const events: SegmentEvent[] = [];
    const warm = new WarmIndex(store, options({ onSegment: (event) => events.push(event) }));
    await warm.refresh();
    expect(events[0]).toMatchObject({ type: 'segment-rejected', reason: 'written from another store' });
  });

  it('a long-lived index reads the rest of the segment in the background: a damaged posting is found without any search', async () => {
    const { header, reference } = await savedWithReference(23);
    // Whole: prefetched, the same answers.
    const whole = new WarmIndex(store, options({ prefetch: true }));
    await whole.refresh();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expectSameAnswers(whole, reference, 31);
    // The last term's postings damaged: only a read of every term finds it.
    const { warm, events } = await damagedInBackground(header.postings.offset + header.postings.bytes);
    expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
    expect(events[1]?.reason).toMatch(/fail their checksum/);
    await warm.refresh(); // rebuilt from the store
    expectSameAnswers(warm, reference, 32);
  });

  it('a long-lived index holds off its background read while its graph is being built on another thread, then reads on', async () => {
    const { header } = await savedWithReference(29);
    // The last term's postings damaged: the background read reports it once it reaches them.
    const damaged = readFileSync(segment);
    const end = header.postings.offset + header.postings.bytes;
    damaged.fill(0x7f, end - 8, end);
    writeFileSync(segment, damaged);
    const graphFile = join(folder, 'graph.hnsw');
    const release = graphBuildStarted(graphFile);
    const events: SegmentEvent[] = [];
    const warm = new WarmIndex(store, options({ prefetch: true, graphFile, onSegment: (event) => events.push(event) }));
    try {
      await warm.refresh();
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(events.map((event) => event.type)).toEqual(['segment-loaded']); // nothing read in the background yet
    } finally {
      release();
    }
    for (let wait = 0; wait < 100 && events.length < 2; wait++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
    warm.close();
  });

  it('a damaged file found in the background is deleted only while the path still names it: a good one saved there since is kept', async () => {
    const { header } = await savedWithReference(47);
    const good = readFileSync(segment);
    const damaged = Buffer.from(good);
    const end = header.postings.offset + header.postings.bytes;
    damaged.fill(0x7f, end - 8, end);
    writeFileSync(segment, damaged);
    const graphFile = join(folder, 'graph.hnsw');
    const release = graphBuildStarted(graphFile); // holds the background read off until the good file is in place
    const events: SegmentEvent[] = [];
    const warm = new WarmIndex(store, options({ prefetch: true, graphFile, onSegment: (event) => events.push(event) }));
    try {
      await warm.refresh();
      writeFileSync(`${segment}.new`, good);
      renameSync(`${segment}.new`, segment); // another process saved a good segment
    } finally {
      release();
    }
    for (let wait = 0; wait < 100 && events.length < 2; wait++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
    expect(readFileSync(segment).equals(good)).toBe(true);
    warm.close();
  });

  it('a retired index (its holder took another) stops its background read, keeps its file open for searches under way, and closes it after the grace', async () => {
    const { header } = await savedWithReference(41);
    const { warm, events } = await openOverDamage(header.postings.offset + header.postings.bytes);
    warm.retire(300); // before the background read's first step
    const sleep = () => new Promise((resolve) => setTimeout(resolve, 20));
    expect(openHandles(segment)).toBe(1);
    for (let wait = 0; wait < 5; wait++) await sleep();
    expect(openHandles(segment)).toBe(1);
    for (let wait = 0; wait < 100 && openHandles(segment) > 0; wait++) await sleep();
    expect(openHandles(segment)).toBe(0);
    expect(events.map((event) => event.type)).toEqual(['segment-loaded']); // the damaged postings were never read
  });

  it('lexicon and path blocks are read as searches need them: damage found by a search rebuilds the index, and a long-lived index finds it in the background', async () => {
    const { header, reference } = await savedWithReference(37);
    for (const [end, reason] of [
      [header.lexicon.offset + header.lexicon.bytes, /lexicon block \d+ fails its checksum/],
      [header.paths.offset + header.paths.bytes, /paths block \d+ fails its checksum/],
    ] as const) {
      const good = readFileSync(segment);
      const { warm, events } = await damagedInBackground(end);
      expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
      expect(events[1]?.reason).toMatch(reason);
      await warm.refresh(); // rebuilt from the store
      expectSameAnswers(warm, reference, 44);
      // Without the background read: the searches that reach the damaged block rebuild the index and answer the same.
      const damaged = Buffer.from(good);
      damaged.fill(0x7f, end - 8, end);
      writeFileSync(segment, damaged);
      const rejected: SegmentEvent[] = [];
      const oneShot = new WarmIndex(store, options({ onSegment: (event) => rejected.push(event) }));
      await oneShot.refresh();
      expect(oneShot.fromSegment).toBe(true);
      const retriever = { lexical: (terms: string[]) => oneShot.guard(() => oneShot.searchLexical(terms, 15, undefined)) };
      for (const word of vocabulary) {
        const terms = queryTerms(word);
        expect(await retriever.lexical(terms)).toEqual(reference.searchLexical(terms, 15, undefined));
      }
      expect(rejected.map((event) => event.reason).join(' ')).toMatch(reason);
      expect(oneShot.fromSegment).toBe(false);
      writeFileSync(segment, good);
    }
  });

  it('a save that meets a damaged block of the file it was read from rebuilds from the store and saves a whole file', async () => {
    // The first lexicon block damaged (no search reads it here): only the save reads every term.
    const { reference, warm, events } = await openOverDamagedLexicon(47);
    expect(warm.fromSegment).toBe(true);
    for (let file = 30; file < 32; file++) await writeRandomFile(random(48 + file), `src/a/file${file}.ts`);
    await warm.persist();
    // One rejection (the damage), then the whole file saved.
    expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected', 'segment-saved']);
    expect(events[1]?.reason).toMatch(/lexicon block 0 fails its checksum/);
    const reader = SegmentReader.open(segment);
    reader.verifyAll(); // whole again
    reader.close();
    await reference.refresh();
    expectSameAnswers(warm, reference, 49);
  });

  it('closing past the change threshold over a damaged block of the file it was read from reports it once and drops the file', async () => {
    const { reference, warm, events } = await openOverDamagedLexicon(53);
    const next = random(54);
    for (let file = 0; file < 700; file++) await writeRandomFile(next, `src/c/late${file}.ts`);
    await warm.refresh();
    warm.saveGraph();
    expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
    expect(events[1]?.reason).toMatch(/lexicon block 0 fails its checksum/);
    expect(existsSync(segment)).toBe(false);
    // The next process rebuilds from the store and answers as an index that never had a file.
    const after = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await after.refresh();
    await reference.refresh();
    expectSameAnswers(after, reference, 55);
  });

  it('a run rewrites the file once the deletions since it reach minChanges, even when the rows it holds changed less (the log a new process would read)', async () => {
    await savedWithReference(71);
    const saved = readFileSync(segment);
    const next = random(72);
    // Another writer adds and deletes the same file again and again: few rows live after the file, many deletions.
    for (let round = 0; round < 30; round++) {
      await writeRandomFile(next, 'src/churn.ts');
      await store.deleteFile('src/churn.ts');
    }
    await writeRandomFile(next, 'src/kept.ts');
    const few = new WarmIndex(store, options());
    await few.persist({ minChanges: 1_000 });
    expect(readFileSync(segment).equals(saved)).toBe(true);
    const many = new WarmIndex(store, options());
    await many.persist({ minChanges: 20 });
    expect(readFileSync(segment).equals(saved)).toBe(false);
    expect(readSegmentHeader(segment)?.chunkDeletions).toBe(await store.chunkDeletions?.());
  });

  it('an index read from a segment and a delta, then compacted after deleting most of the delta, holds every row once and answers as one built from rows', async () => {
    const write = (file: number) =>
      store.writeFile({
        entry: catalogEntry(`src/f${file}.ts`, { embedder: 'e@8' }),
        chunks: Array.from({ length: 100 }, (_, index) =>
          chunk(`src/f${file}.ts`, index * 10 + 1, `alpha word${file} beta${index} ${vocabulary[(file * 7 + index) % vocabulary.length]}`, {
            vector: Float32Array.from({ length: DIMENSIONS }, (_, dimension) => Math.sin(file + index * 0.1 + dimension)),
          }),
        ),
      });
    for (let file = 0; file < 30; file++) await write(file);
    await new WarmIndex(store, options()).persist();
    for (let file = 30; file < 50; file++) await write(file);
    const warm = new WarmIndex(store, options());
    await warm.refresh();
    expect(warm.fromSegment).toBe(true);
    // 1,400 of the 2,000 rows after the segment deleted: past a quarter of the slots, the lexical index compacts.
    for (let file = 30; file < 44; file++) await store.deleteFile(`src/f${file}.ts`);
    await warm.refresh();
    await store.deleteFile('src/f0.ts');
    await warm.refresh();
    const reference = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await reference.refresh();
    expect([warm.size, reference.size]).toEqual([3_500, 3_500]);
    expectSameAnswers(warm, reference, 61);
    for (const query of ['alpha word3', 'word0 beta7', 'alpha']) expect(warm.searchLexical(queryTerms(query), 10, undefined)).toEqual(reference.searchLexical(queryTerms(query), 10, undefined));
  });

  it('compacted twice over rows of the file whose lists were never read, then changed, read and saved, answers as an index built from rows', async () => {
    const write = (file: number, variant = 0) =>
      store.writeFile({
        entry: catalogEntry(`src/f${file}.ts`, { embedder: 'e@8' }),
        chunks: Array.from({ length: 100 }, (_, index) =>
          chunk(`src/f${file}.ts`, index * 10 + 1, `alpha word${file} beta${index + variant} ${vocabulary[(file * 7 + index + variant) % vocabulary.length]}`, {
            vector: Float32Array.from({ length: DIMENSIONS }, (_, dimension) => Math.sin(file + index * 0.1 + dimension + variant)),
          }),
        ),
      });
    for (let file = 0; file < 40; file++) await write(file);
    await new WarmIndex(store, options()).persist();
    const warm = new WarmIndex(store, options());
    await warm.refresh();
    expect(warm.fromSegment).toBe(true);
    const slots = () => (warm as unknown as { lexical: { slotCount: number } }).lexical.slotCount;
    // A quarter and more of the file's rows deleted before any list of it was read: a compaction renumbers the slots.
    for (let file = 0; file < 11; file++) await store.deleteFile(`src/f${file}.ts`);
    await warm.refresh();
    const first = slots();
    expect(first).toBeLessThan(4_000 - 1_000);
    // New rows, then more of the file's rows deleted: a second compaction renumbers the first one's numbers.
    for (let file = 40; file < 46; file++) await write(file);
    await warm.refresh();
    for (let file = 11; file < 24; file++) await store.deleteFile(`src/f${file}.ts`);
    await warm.refresh();
    expect(slots()).toBeLessThan(first + 600 - 800);
    // After them, a row of the file removed (its terms found by their place in the file) and one rewritten.
    await store.deleteFile('src/f30.ts');
    await write(31, 3);
    await warm.refresh();
    const reference = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await reference.refresh();
    expect([warm.size, reference.size]).toEqual([2_100, 2_100]);
    expectSameAnswers(warm, reference, 63);
    for (const query of ['alpha word33', 'word27 beta7', 'alpha', 'word5', 'beta4 word44'])
      expect(warm.searchLexical(queryTerms(query), 10, undefined)).toEqual(reference.searchLexical(queryTerms(query), 10, undefined));
    // Saved (every list and row of the file read for it), the next index from the new file answers the same.
    await warm.persist();
    const next = new WarmIndex(store, options());
    await next.refresh();
    expect(next.fromSegment).toBe(true);
    expectSameAnswers(next, reference, 64);
  });

  it('a long-lived index reads the vector matrix in the background too: its searches no longer read the file, and damaged vectors are found without any search', async () => {
    const { header, reference } = await savedWithReference(41);
    const whole = new WarmIndex(store, options({ prefetch: true }));
    await whole.refresh();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Everything was read: with the file closed, every answer still comes (none reads it).
    whole.close();
    expectSameAnswers(whole, reference, 42);
    // The matrix's last vector damaged: the background read finds it and drops the file.
    const { warm, events } = await damagedInBackground(header.matrix.offset + header.matrix.bytes);
    expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-rejected']);
    expect(events[1]?.reason).toMatch(/vectors fail their checksum/);
    await warm.refresh(); // rebuilt from the store
    expectSameAnswers(warm, reference, 43);
  });

  it('a planted file with a valid checksum but ids beyond the store (which would size arrays by them) is rejected, not followed', async () => {
    await writeRandomFile(random(41), 'src/a/one.ts', false);
    const planted = (lastLexiconId: number, termId: number) =>
      writeSegment(segment, {
        header: { storeInstance: 'store-a', embedderId: 'none', dimensions: 0, weights, watermark: 1, lastLexiconId },
        lexical: {
          rowIds: Float64Array.of(1),
          lengths: Float64Array.of(1),
          termOffsets: Uint32Array.of(0, 1),
          rowTerms: () => ({ termIds: Uint32Array.of(termId), weighted: Float32Array.of(1) }),
          metaIndex: Uint32Array.of(0),
          metas: [{ path: 'src/a/one.ts', language: 'typescript' }],
          postingTerms: Uint32Array.of(termId),
          postingOffsets: Uint32Array.of(0, 1),
          postings: () => ({ slots: Int32Array.of(0), weighted: Float32Array.of(1) }),
          postingMax: Float32Array.of(1),
        },
        vectors: undefined,
        lexicon: sortTerms([['planted', termId]]),
        pending: [],
      });
    const lexicalOnly = { ...options(), embedderId: 'none', dimensions: 0 };
    for (const [lastLexiconId, termId, reason] of [
      [5, 2 ** 31, /posting terms|lexicon ids/], // an id past the header's own bound
      [2 ** 31, 2 ** 31, /not the store's/], // a bound the store does not have
    ] as const) {
      planted(lastLexiconId, termId);
      const events: SegmentEvent[] = [];
      const warm = new WarmIndex(store, { ...lexicalOnly, onSegment: (event) => events.push(event) });
      await warm.refresh();
      expect(warm.fromSegment).toBe(false);
      expect(events[0]?.reason).toMatch(reason);
      expect(warm.size).toBeGreaterThan(0); // built from the store instead
    }
  });

  it("saves the segment while a run's graph is finished elsewhere, then maps that graph instead of building one", async () => {
    const next = random(31);
    for (let file = 0; file < 30; file++) await writeRandomFile(next, `src/g/file${file}.ts`);
    const graphFile = join(folder, 'vectors.hnsw');
    const warm = new WarmIndex(store, options({ graphFile, graphThreshold: 10 }));
    // What an indexing run does while its graph worker adds the last rows: rows and segment, no
    // graph, and none until the worker is done (a search meanwhile answers exactly, building none).
    const release = warm.deferGraph();
    await warm.persist({ withoutGraph: true });
    expect(warm.usesVectorGraph).toBe(false);
    await warm.refresh();
    expect(
      warm.searchVectors(
        Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5),
        5,
        undefined,
      ),
    ).toHaveLength(5);
    expect(warm.usesVectorGraph).toBe(false);
    expect(existsSync(graphFile)).toBe(false);
    expect(readSegmentHeader(segment)?.watermark).toBe(warm.size > 0 ? Math.max(...(await store.liveRowIds())) : 0);
    // The graph worker's file (here: another index that builds and saves it).
    const elsewhere = new WarmIndex(store, { ...options({ graphFile, graphThreshold: 10 }), segmentFile: undefined });
    await elsewhere.persist();
    elsewhere.close();
    const saved = statSync(graphFile).mtimeMs;
    const segmentSaved = statSync(segment).mtimeMs;
    release();
    await warm.persist();
    expect(warm.usesVectorGraph).toBe(true);
    // Mapped, not built and saved again; the segment was already current.
    expect(statSync(graphFile).mtimeMs).toBe(saved);
    expect(statSync(segment).mtimeMs).toBe(segmentSaved);
    expect(
      warm.searchVectors(
        Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5),
        5,
        undefined,
      ),
    ).toHaveLength(5);
    warm.close();
  });

  it('paths of any script round-trip: stored as UTF-8 bytes, decoded only when a search returns or filters on them', async () => {
    const next = random(31);
    const folders = ['src/a/', 'src/ü/naïve/', 'docs/日本語/', 'src/emoji-😀/', 'src/\uE000private/'];
    for (let file = 0; file < 40; file++) await writeRandomFile(next, `${folders[file % folders.length]}file${file}.ts`);
    await new WarmIndex(store, options()).persist();
    const loaded = new WarmIndex(store, options());
    await loaded.refresh();
    expect(loaded.fromSegment).toBe(true);
    const fresh = new WarmIndex(store, { ...options(), segmentFile: undefined });
    await fresh.refresh();
    expectSameAnswers(loaded, fresh, 32);
    const vector = Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5);
    const paths = new Set<string>();
    for (const folderName of folders) {
      const filter = { pathPrefixes: [folderName] };
      const found = loaded.searchVectors(vector, 50, filter);
      expect(found).toEqual(fresh.searchVectors(vector, 50, filter));
      expect(found.length).toBeGreaterThan(0);
      for (const row of found) {
        expect(row.path.startsWith(folderName)).toBe(true);
        paths.add(row.path);
      }
    }
    expect(paths.size).toBe(40);
  });

  it('a lexical-only index (no embedder) round-trips too', async () => {
    const next = random(29);
    for (let file = 0; file < 20; file++) await writeRandomFile(next, `src/${file % 2 ? 'a' : 'b'}/file${file}.ts`, false);
    const lexicalOnly = { ...options(), embedderId: 'none', dimensions: 0 };
    await new WarmIndex(store, lexicalOnly).persist();
    const loaded = new WarmIndex(store, lexicalOnly);
    await loaded.refresh();
    expect(loaded.fromSegment).toBe(true);
    const fresh = new WarmIndex(store, { ...lexicalOnly, segmentFile: undefined });
    await fresh.refresh();
    const terms = queryTerms(`${vocabulary[0]} ${vocabulary[3]} ${vocabulary[9]}`);
    expect(loaded.searchLexical(terms, 10, undefined)).toEqual(fresh.searchLexical(terms, 10, undefined));
    expect(loaded.searchLexical(terms, 10, undefined).length).toBeGreaterThan(0);
  });

  it('a store without an instance id (made before segments) gets no segment until indexing gives it one', async () => {
    await store.writeState(STORE_INSTANCE_STATE, '');
    const next = random(9);
    for (let file = 0; file < 5; file++) await writeRandomFile(next, `src/a/file${file}.ts`);
    const warm = new WarmIndex(store, options());
    await warm.persist();
    expect(existsSync(segment)).toBe(false);
  });

  it('a crash while saving leaves the last good file in use; closing rewrites only past the change threshold', async () => {
    const next = random(17);
    for (let file = 0; file < 40; file++) await writeRandomFile(next, `src/a/file${file}.ts`);
    await new WarmIndex(store, options()).persist();
    const good = readFileSync(segment);
    // What a writer killed mid-save leaves: a partial temporary file beside the good one.
    writeFileSync(`${segment}.4242.abcdef.tmp`, good.subarray(0, 100));
    const warm = new WarmIndex(store, options());
    await warm.refresh();
    expect(warm.fromSegment).toBe(true);
    // A few new rows: closing does not rewrite (the next process catches them up from the store).
    await writeRandomFile(next, 'src/a/late.ts');
    await warm.refresh();
    warm.saveGraph();
    expect(readFileSync(segment).equals(good)).toBe(true);
    // Nor does a watcher batch's merge (persist past the threshold only) ...
    await warm.persist({ pastThresholdOnly: true });
    expect(readFileSync(segment).equals(good)).toBe(true);
    // ... until the store has moved far from the file (1,000 rows or 5 %).
    const merging = new WarmIndex(store, options());
    await merging.refresh();
    for (let file = 0; file < 700; file++) await writeRandomFile(next, `src/b/late${file}.ts`);
    await merging.persist({ pastThresholdOnly: true });
    const merged = readFileSync(segment);
    expect(merged.equals(good)).toBe(false);
    // After indexing (persist), it is rewritten whenever the store is newer.
    await writeRandomFile(next, 'src/a/later.ts');
    await warm.persist();
    expect(readFileSync(segment).equals(merged)).toBe(false);
    expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual(['segment.seg.4242.abcdef.tmp']);
  });
});
