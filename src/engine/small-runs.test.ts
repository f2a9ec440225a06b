import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSegmentHeader } from '../store/segment-file.js';
import { SEGMENT_REWRITE_MIN } from '../retrieve/warm/warm-index.js';
import { createLoci } from './create-loci.js';

const topics = ['queue', 'flush', 'parser', 'socket', 'cache', 'render', 'schema', 'token', 'worker', 'stream'];
const note = (index: number, extra = '') => ({
  id: `docs/note-${index}.md`,
  text: `# ${topics[index % topics.length]} note ${index}\n\nHow the ${topics[index % topics.length]} handles step ${index}. ${extra}`,
});

let dir: string;
let storeDir: string;
const segment = () => {
  const name = readdirSync(storeDir).find((file) => file.startsWith('segment-') && file.endsWith('.seg'));
  if (!name) throw new Error('no segment file');
  return join(storeDir, name);
};
const answers = async (store: string, queries: string[]) => {
  const loci = createLoci({ root: dir, store });
  try {
    return await Promise.all(queries.map(async (query) => (await loci.search(query, { topK: 8 })).results.map((result) => [result.path, result.startLine, result.score])));
  } finally {
    await loci.close();
  }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loci-small-runs-'));
  storeDir = join(dir, 'store');
  const loci = createLoci({ root: dir, store: storeDir });
  await loci.indexDocuments(Array.from({ length: 80 }, (_, index) => note(index)));
  await loci.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an indexing run that changes few rows leaves the segment file as it is', () => {
  it('a new process reads the new rows from the store and the deleted ones from its log, and answers as one without the file', async () => {
    const before = readFileSync(segment());
    const loci = createLoci({ root: dir, store: storeDir });
    // One note rewritten (its old rows deleted), one added.
    const changed = await loci.indexDocuments([note(3, 'Now about zeppelin mooring masts.'), note(500, 'An airship hangar note.')]);
    expect(changed.files).toMatchObject({ updated: 1, added: 1, total: 81 });
    // The same documents again: found by id, nothing rewritten.
    const again = await loci.indexDocuments([note(3, 'Now about zeppelin mooring masts.'), note(500, 'An airship hangar note.'), note(4)]);
    expect(again.files).toMatchObject({ indexed: 0, unchanged: 3, total: 81 });
    await loci.close();
    expect(readFileSync(segment()).equals(before)).toBe(true);

    const queries = ['zeppelin mooring', 'airship hangar', 'parser handles step 3', 'cache note 4', 'queue handles'];
    const fromSegment = await answers(storeDir, queries);
    expect(fromSegment[0]?.[0]?.[0]).toBe('docs/note-3.md');
    expect(fromSegment[1]?.[0]?.[0]).toBe('docs/note-500.md');
    // The same answers from the rows alone (a process that finds no file rebuilds from them).
    rmSync(segment());
    expect(await answers(storeDir, queries)).toEqual(fromSegment);
  });

  it(`a run that changes ${SEGMENT_REWRITE_MIN} rows or more rewrites it`, async () => {
    const loci = createLoci({ root: dir, store: storeDir });
    await loci.indexDocuments(Array.from({ length: SEGMENT_REWRITE_MIN + 20 }, (_, index) => note(1000 + index)));
    await loci.close();
    const header = readSegmentHeader(segment());
    expect(header?.rows).toBeGreaterThanOrEqual(80 + SEGMENT_REWRITE_MIN + 20);
  });
});
