import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDIDATE_POOL } from '../retrieve/rank-pool.js';
import { createLoci, type Loci } from './create-loci.js';

// More matching chunks than one candidate pool holds, spread over files of a few chunks each,
// with words in varied amounts so scores differ: the pool's edge and its normalisation matter.
const words = ['queue', 'flush', 'job', 'scheduler', 'retry', 'timer', 'batch', 'worker'];
const documents = Array.from({ length: 3 * CANDIDATE_POOL }, (_, index) => ({
  id: `src/module-${index % 150}/part-${index}.ts`,
  text: Array.from({ length: 6 + (index % 7) }, (_, line) => `${words[(index + line) % words.length]} ${words[(index * 3 + line) % words.length]} step ${index} ${line}`).join('\n'),
}));

let dir: string;
let loci: Loci;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loci-top-k-'));
  loci = createLoci({ root: dir, store: join(dir, 'store') });
  await loci.indexDocuments(documents);
});
afterAll(async () => {
  await loci.close();
  await rm(dir, { recursive: true, force: true });
});

const ranking = async (topK: number, files: boolean) => (await loci.search('flush the job queue and retry the batch', { topK, files })).results;

describe('the first results do not depend on how many are asked for', () => {
  it('chunks: the top 5 of 5, 50 and 400 are the same, with the same scores', async () => {
    const [five, fifty, many] = await Promise.all([ranking(5, false), ranking(50, false), ranking(400, false)]);
    expect(five).toHaveLength(5);
    expect(fifty.slice(0, 5).map((result) => [result.chunkId, result.score])).toEqual(five.map((result) => [result.chunkId, result.score]));
    expect(many.slice(0, 50).map((result) => result.chunkId)).toEqual(fifty.map((result) => result.chunkId));
    // 400 is more than one pool holds: the deeper pool's results follow, scores never rising.
    expect(many.length).toBeGreaterThan(CANDIDATE_POOL);
    expect(new Set(many.map((result) => result.chunkId)).size).toBe(many.length);
    expect(many.every((result, index) => index === 0 || result.score <= (many[index - 1]?.score ?? Number.POSITIVE_INFINITY))).toBe(true);
  });

  it('files: the top 10 of 10 and of 140 are the same files in the same order', async () => {
    const [ten, deep] = await Promise.all([ranking(10, true), ranking(140, true)]);
    expect(deep.slice(0, 10).map((result) => result.path)).toEqual(ten.map((result) => result.path));
    expect(new Set(deep.map((result) => result.path)).size).toBe(deep.length);
    expect(deep.length).toBe(140);
  });
});

describe('a threshold cuts the list that is shown, and changes nothing above the cut', () => {
  it('gives the results at or above it, with the same scores, for cuts across the first pool', async () => {
    const query = 'flush the job queue and retry the batch';
    const all = (await loci.search(query, { topK: 50 })).results;
    expect(all.length).toBe(50);
    for (const at of [0, 3, 12, 40]) {
      // Just above one result's score: it and everything after it drop, nothing else moves.
      const cut = (all[at] as { score: number }).score + 1e-9;
      const kept = (await loci.search(query, { topK: 50, threshold: cut })).results;
      const expected = all.filter((result) => result.score >= cut);
      expect(kept.map((result) => [result.chunkId, result.score])).toEqual(expected.map((result) => [result.chunkId, result.score]));
    }
    // A result the threshold dropped from the first pool does not come back from a deeper one with that pool's score.
    const lowest = (all[all.length - 1] as { score: number }).score;
    const deep = (await loci.search(query, { topK: 400, threshold: lowest })).results;
    expect(deep.map((result) => [result.chunkId, result.score])).toEqual(all.filter((result) => result.score >= lowest).map((result) => [result.chunkId, result.score]));
  });
});

describe('document ids', () => {
  it('refuses an id that is not well-formed Unicode (it could not be stored as it was given), and keeps what was indexed', async () => {
    for (const id of ['cut-emoji-\uD83D', '\uDE00-start', 'mid\uD83Ddle']) {
      await expect(loci.indexDocuments([{ id, text: 'flush the queue' }])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('not well-formed Unicode') });
    }
    expect((await loci.search('flush the job queue', { topK: 3 })).results.length).toBe(3);
    // A whole pair is fine.
    const emoji = await mkdtemp(join(tmpdir(), 'loci-emoji-'));
    const other = createLoci({ root: emoji, store: join(emoji, 'store') });
    try {
      await other.indexDocuments([{ id: 'notes/😀.md', text: 'flush the queue' }]);
      expect((await other.search('flush queue', { topK: 1 })).results[0]?.path).toBe('notes/😀.md');
    } finally {
      await other.close();
      await rm(emoji, { recursive: true, force: true });
    }
  });
});

describe('a filter that nothing passes', () => {
  it('says no indexed file matches it, and says nothing when files match but the query does not', async () => {
    const warning = /No indexed file matches the filter/;
    for (const options of [{ paths: ['nosuchdir/**'] }, { pathPrefixes: ['nosuchdir/'] }, { paths: ['src/**/*.md'] }]) {
      const response = await loci.search('flush the job queue', options);
      expect(response.results).toEqual([]);
      expect(response.warnings.some((text) => warning.test(text))).toBe(true);
    }
    // Files pass the filter; the query's words are in none of them (lexical: vectors always find something): no such warning.
    const unmatched = await loci.search('zyzzyva quokka', { paths: ['src/module-1/**'], mode: 'lexical' });
    expect(unmatched.results).toEqual([]);
    expect(unmatched.warnings.some((text) => warning.test(text))).toBe(false);
    // Results: never the warning.
    expect((await loci.search('flush the job queue', { paths: ['src/module-1/**'] })).warnings.some((text) => warning.test(text))).toBe(false);
  });
});

describe('the symbol a result is labelled with', () => {
  it('is the one of the chunk whose words the query holds most, else the chunk’s own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loci-label-'));
    const two = createLoci({ root: dir, store: join(dir, 'store') });
    try {
      const text = `def __getattr__(name):\n    """Deprecated attribute access."""\n    if name == "old":\n        return 1\n    raise AttributeError(name)\n\n\ndef frobnicate_zebra_quantizer(stripes):\n    """Quantize the stripes of a zebra."""\n    return [s // 2 for s in stripes]\n`;
      await two.indexDocuments([{ id: 'src/utils.py', text }]);
      const [asked] = (await two.search('how are zebra stripes quantized', { topK: 1 })).results;
      expect(asked?.symbols).toEqual(['__getattr__', 'frobnicate_zebra_quantizer']);
      expect(asked?.symbol).toBe('frobnicate_zebra_quantizer');
      // A question about neither: the chunk's own (first) symbol.
      expect((await two.search('deprecated access', { topK: 1 })).results[0]?.symbol).toBe('__getattr__');
    } finally {
      await two.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
