import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/spec.js';
import { catalogEntry, chunk } from '../../store/test-support/store-contract.js';
import { writeSegmentInParts } from './segment-parts.js';
import { SEGMENT_REWRITE_MIN, type SegmentEvent, WarmIndex, type WarmIndexOptions } from './warm-index.js';
import { STORE_INSTANCE_STATE } from './warm-segment.js';
import { pick, random } from './test-words.js';

const weights = { path: 1.5, symbols: 2, heading: 1.5, body: 1 };
const DIMENSIONS = 8;

let folder: string;
let store: Store;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-parts-'));
  store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
  await store.writeState(STORE_INSTANCE_STATE, 'store-a');
});
afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

function options(segmentFile: string, extra: Partial<WarmIndexOptions> = {}): WarmIndexOptions & { segmentFile: string } {
  return { weights, embedderId: 'e@8', dimensions: DIMENSIONS, segmentFile, ...extra };
}

/**
 * Files of 1–3 chunks with random words (a few files in a second language, a few without a
 * vector), then some files deleted: row ids with gaps, a deletion count, rows awaiting vectors.
 */
async function randomStore(seed: number, files: number): Promise<void> {
  const next = random(seed);
  for (let file = 0; file < files; file++) {
    // A few paths not ASCII (merged parts pack paths as bytes), one with a character past 16 bits.
    const path = file % 13 === 4 ? `src/ünï/😀${file}.md` : `src/${file % 7}/file${file}.${file % 5 === 0 ? 'py' : 'ts'}`;
    const chunks = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, index) => {
      const words = Array.from({ length: 3 + Math.floor(next() * 40) }, () => pick(next));
      const vector = Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5);
      return chunk(path, index * 10 + 1, words.join(' '), file % 11 === 3 ? {} : { vector });
    });
    await store.writeFile({ entry: catalogEntry(path, { embedder: 'e@8' }), chunks });
  }
  await store.deleteFiles([`src/1/file1.ts`, `src/2/file9.ts`, `src/3/file17.ts`]);
}

describe('a segment written a part at a time', () => {
  it('is the very file one index of every row writes, whatever the part size', async () => {
    await randomStore(7, 90);
    const whole = join(folder, 'whole.seg');
    await new WarmIndex(store, options(whole)).persist();
    const rows = (await store.countChunks()) as number;
    expect(rows).toBeGreaterThan(150);
    for (const partRows of [1, 16, 50, Math.floor(rows / 2)]) {
      const inParts = join(folder, `parts-${partRows}.seg`);
      expect(await writeSegmentInParts(store, options(inParts), partRows)).toBe(true);
      expect(readFileSync(inParts).equals(readFileSync(whole)), `parts of ${partRows} rows`).toBe(true);
    }
    // Fewer rows than two parts: nothing written (one index of them costs no more).
    expect(await writeSegmentInParts(store, options(join(folder, 'small.seg')), rows)).toBe(false);
    expect(existsSync(join(folder, 'small.seg'))).toBe(false);
    expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a fresh index saves in parts, then answers from the file as one built from the rows does', async () => {
    await randomStore(11, 120);
    const file = join(folder, 'segment.seg');
    const events: SegmentEvent[] = [];
    const warm = new WarmIndex(store, options(file, { segmentPartRows: 40, onSegment: (event) => events.push(event) }));
    await warm.persist();
    expect(events.map((event) => event.type)).toEqual(['segment-saved', 'segment-loaded']);
    expect(warm.fromSegment).toBe(true);
    const reference = new WarmIndex(store, options(file, { segmentFile: undefined }));
    await reference.refresh();
    expect(warm.size).toBe(reference.size);
    const next = random(3);
    for (let query = 0; query < 40; query++) {
      const terms = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(next));
      expect(warm.searchLexical(terms, 10, undefined), terms.join(' ')).toEqual(reference.searchLexical(terms, 10, undefined));
      const vector = Float32Array.from({ length: DIMENSIONS }, () => next() - 0.5);
      expect(warm.searchVectors(vector, 10, undefined)).toEqual(reference.searchVectors(vector, 10, undefined));
    }
    expect(warm.searchLexical([pick(random(5))], 5, { languages: ['python'] })).toEqual(reference.searchLexical([pick(random(5))], 5, { languages: ['python'] }));
    // Rows committed after the file are caught up from the store, as after any segment.
    await store.writeFile({ entry: catalogEntry('late.ts', { embedder: 'e@8' }), chunks: [chunk('late.ts', 1, 'zebra quagga okapi', { vector: new Float32Array(DIMENSIONS).fill(0.5) })] });
    await warm.refresh();
    expect(warm.searchLexical(['quagga'], 3, undefined)).toHaveLength(1);
    warm.close();
    reference.close();
  });

  it('a fresh index over a store less than a part past its file reads the file and leaves a small run a delta', async () => {
    await randomStore(19, 120);
    const file = join(folder, 'segment.seg');
    const fresh = (events: SegmentEvent[]) => new WarmIndex(store, options(file, { segmentPartRows: 40, onSegment: (event) => events.push(event) }));
    const first: SegmentEvent[] = [];
    const built = fresh(first);
    await built.persist({ minChanges: SEGMENT_REWRITE_MIN });
    built.close();
    expect(first[0]?.type).toBe('segment-saved');
    const saved = readFileSync(file);
    // One file added, one deleted: an indexing run's new index (as the CLI's is) reads the file and catches up.
    await store.writeFile({ entry: catalogEntry('late.ts', { embedder: 'e@8' }), chunks: [chunk('late.ts', 1, 'zebra quagga okapi', { vector: new Float32Array(DIMENSIONS).fill(0.5) })] });
    await store.deleteFiles(['src/3/file24.ts']);
    const second: SegmentEvent[] = [];
    const caughtUp = fresh(second);
    await caughtUp.persist({ minChanges: SEGMENT_REWRITE_MIN });
    expect(second.map((event) => event.type)).toEqual(['segment-loaded']);
    expect(readFileSync(file).equals(saved)).toBe(true);
    expect(caughtUp.searchLexical(['quagga'], 3, undefined)).toHaveLength(1);
    expect(caughtUp.size).toBe(await store.countChunks());
    caughtUp.close();
    // A part's rows or more since the file: written again in parts.
    for (let file = 0; file < 40; file++) await store.writeFile({ entry: catalogEntry(`more${file}.ts`, { embedder: 'e@8' }), chunks: [chunk(`more${file}.ts`, 1, `more words ${file}`)] });
    const third: SegmentEvent[] = [];
    const rewritten = fresh(third);
    await rewritten.persist({ minChanges: SEGMENT_REWRITE_MIN });
    expect(third[0]?.type).toBe('segment-saved');
    expect(rewritten.size).toBe(await store.countChunks());
    rewritten.close();
  });

  it("goes the parts way past a file of another format version, removes a killed save's part files either way, and counts vectors attached since the file", async () => {
    await randomStore(23, 120);
    const file = join(folder, 'segment.seg');
    const fresh = (events: SegmentEvent[]) => new WarmIndex(store, options(file, { segmentPartRows: 40, onSegment: (event) => events.push(event) }));
    const persisted = async () => {
      const events: SegmentEvent[] = [];
      const warm = fresh(events);
      await warm.persist({ minChanges: SEGMENT_REWRITE_MIN });
      warm.close();
      return events.map((event) => event.type);
    };
    expect(await persisted()).toEqual(['segment-saved', 'segment-loaded']);
    // A file an older loci wrote (same bytes, another version): rejected when read, so never "nearby".
    const bytes = readFileSync(file, 'latin1');
    expect(bytes).toContain('"version":5');
    writeFileSync(file, bytes.replace('"version":5', '"version":4'), 'latin1');
    expect(await persisted()).toEqual(['segment-saved', 'segment-loaded']);
    // A killed save's part file goes, though the file is near enough to be read.
    const dead = `${file}.999999.abcdef.part0.tmp`;
    writeFileSync(dead, 'left by a process killed mid-save');
    expect(await persisted()).toEqual(['segment-loaded']);
    expect(existsSync(dead)).toBe(false);
    // The rows saved without a vector get theirs from the cache: each is a change the file lacks.
    const pending = (await store.scanIndexRows({ embedderId: 'e@8' })).filter((row) => !row.vector);
    expect(pending.length).toBeGreaterThan(5);
    await store.putCachedVectors('e@8', new Map(pending.map((row) => [row.contentHash as string, new Float32Array(DIMENSIONS).fill(0.25)])));
    const events: SegmentEvent[] = [];
    const warm = fresh(events);
    await warm.persist({ minChanges: pending.length });
    warm.close();
    expect(events.map((event) => event.type)).toEqual(['segment-loaded', 'segment-saved']);
  });

  it('never fails a save it cannot write (the file is a cache): the index is built from the rows instead', async () => {
    await randomStore(17, 40);
    const file = join(folder, 'missing-folder', 'segment.seg');
    const events: SegmentEvent[] = [];
    const warm = new WarmIndex(store, options(file, { segmentPartRows: 10, onSegment: (event) => events.push(event) }));
    await warm.persist();
    expect(events[0]).toMatchObject({ type: 'segment-rejected', reason: expect.stringContaining('not saved in parts') });
    expect(warm.size).toBe(await store.countChunks());
    expect(warm.fromSegment).toBe(false);
    warm.close();
  });

  it('removes the part files a killed save left behind, never those of a live process', async () => {
    await randomStore(13, 40);
    const file = join(folder, 'segment.seg');
    const dead = `${file}.999999.abcdef.part0.tmp`;
    const live = `${file}.${process.ppid}.abcdef.part0.tmp`;
    writeFileSync(dead, 'left by a process killed mid-save');
    writeFileSync(live, 'a save under way in another process');
    expect(await writeSegmentInParts(store, options(file), 10)).toBe(true);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});
