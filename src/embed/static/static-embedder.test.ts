import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEmbedderContract } from '../test-support/embedder-contract.js';
import { createStaticEmbedder, DEFAULT_STATIC_MODEL_DIGEST, DEFAULT_STATIC_MODEL_FILE } from './static-embedder.js';
import { loadStaticModel } from './static-model.js';

describeEmbedderContract('static (shipped model)', async () => ({ model: createStaticEmbedder() }), { semantic: true });

describe('static embedder', () => {
  it('loads the shipped model offline and is fast', async () => {
    const model = createStaticEmbedder();
    expect(model.provider).toBe('static');
    expect(model.revision).toMatch(/^[0-9a-f]{12}$/);
    const texts = Array.from({ length: 2000 }, (_, index) => `function parseConfig${index}(text) { return JSON.parse(text); } // reads settings`);
    const started = performance.now();
    const { embeddings } = await model.doEmbed({ values: texts, purpose: 'document' });
    expect(embeddings).toHaveLength(2000);
    // Thousands per second: far faster than any neural model on this machine.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('embeds queries and documents with their own token weights', () => {
    const model = loadStaticModel(DEFAULT_STATIC_MODEL_FILE);
    const query = model.embed('python check if a list is empty', 'query');
    const document = model.embed('python check if a list is empty', 'document');
    let dot = 0;
    for (let index = 0; index < query.length; index++) dot += (query[index] as number) * (document[index] as number);
    expect(dot).toBeLessThan(0.9999);
    expect(dot).toBeGreaterThan(0.5);
  });

  it('gives the same vectors before and after its token map is built (the first lookups scan the vocabulary)', () => {
    const query = 'parse the config file and check if a list is empty zzqxv';
    const early = loadStaticModel(DEFAULT_STATIC_MODEL_FILE);
    const scanned = early.embed(query, 'query'); // a handful of lookups: answered by scanning
    const long = Array.from({ length: 40 }, (_, index) => `word${index} reader writer`).join(' ');
    early.embed(long, 'document'); // past the scan budget: the map is built
    expect(early.embed(query, 'query')).toEqual(scanned);
    const other = loadStaticModel(DEFAULT_STATIC_MODEL_FILE);
    other.embed(long, 'document');
    expect(other.embed(query, 'query')).toEqual(scanned);
    expect(scanned.some((value) => value !== 0)).toBe(true);
  });

  it('knows the shipped model by its digest, and reads its rows on demand to the same vectors', async () => {
    const eager = loadStaticModel(DEFAULT_STATIC_MODEL_FILE);
    // The digest a start takes on trust is the file's own (retraining the model without updating it fails here).
    expect(eager.digest).toBe(DEFAULT_STATIC_MODEL_DIGEST);
    expect(createStaticEmbedder().revision).toBe(DEFAULT_STATIC_MODEL_DIGEST);
    const lazy = loadStaticModel(DEFAULT_STATIC_MODEL_FILE, { digest: DEFAULT_STATIC_MODEL_DIGEST });
    const query = 'how does the scheduler flush pending jobs';
    // Rows read one at a time, then (past the budget of single reads) every row at once.
    expect(lazy.embed(query, 'query')).toEqual(eager.embed(query, 'query'));
    const texts = Array.from({ length: 60 }, (_, index) => `function parseConfig${index}(text) { return JSON.parse(text); } // reads settings, writes caches, retries requests ${index}`);
    texts.push('the quick brown fox jumps over the lazy dog while compilers optimise loops and allocators reuse memory');
    // Real source text: hundreds of distinct words, past the single-read budget.
    for (const file of ['./static-model.ts', '../../retrieve/warm/warm-index.ts', '../../context/build-context.ts']) texts.push(await readFile(new URL(file, import.meta.url), 'utf8'));
    for (const text of texts) expect(lazy.embed(text, 'document')).toEqual(eager.embed(text, 'document'));
    expect(lazy.embed(query, 'query')).toEqual(eager.embed(query, 'query'));
  });

  it('refuses a truncated model read on demand', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-static-'));
    try {
      const bytes = await readFile(DEFAULT_STATIC_MODEL_FILE);
      await writeFile(join(folder, 'short.bin'), bytes.subarray(0, bytes.length - 100));
      expect(() => loadStaticModel(join(folder, 'short.bin'), { digest: DEFAULT_STATIC_MODEL_DIGEST })).toThrow(
        expect.objectContaining({ code: 'EMBEDDER_UNAVAILABLE', message: expect.stringContaining('truncated') }),
      );
      await writeFile(join(folder, 'tiny.bin'), 'LOCISTAT');
      // Replaced after loading (an upgrade under a running process): refused, not mixed with the old vocabulary.
      await writeFile(join(folder, 'model.bin'), bytes);
      const loaded = loadStaticModel(join(folder, 'model.bin'), { digest: DEFAULT_STATIC_MODEL_DIGEST });
      expect(loaded.embed('parse the config file', 'query').some((value) => value !== 0)).toBe(true);
      const other = Buffer.from(bytes);
      other[other.length - 1] = (other[other.length - 1] as number) ^ 0xff; // another model: another digest
      await writeFile(join(folder, 'next.bin'), other);
      await rename(join(folder, 'next.bin'), join(folder, 'model.bin'));
      const text = 'scheduler flushes pending jobs parse';
      expect(() => loaded.embed(text, 'query')).toThrow(expect.objectContaining({ code: 'EMBEDDER_UNAVAILABLE', message: expect.stringContaining('changed while loci was running') }));
      // The same model put back (a reinstall): accepted, and the text that failed left no count behind.
      await writeFile(join(folder, 'next.bin'), bytes);
      await rename(join(folder, 'next.bin'), join(folder, 'model.bin'));
      const eager = loadStaticModel(DEFAULT_STATIC_MODEL_FILE);
      expect(loaded.embed(text, 'query')).toEqual(eager.embed(text, 'query'));
      expect(loaded.embed('parse the config file', 'query')).toEqual(eager.embed('parse the config file', 'query'));
      expect(() => loadStaticModel(join(folder, 'tiny.bin'), { digest: DEFAULT_STATIC_MODEL_DIGEST })).toThrow(expect.objectContaining({ code: 'EMBEDDER_UNAVAILABLE' }));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('gives a zero vector for text with no known words, and refuses a file that is not a model', async () => {
    const model = loadStaticModel(DEFAULT_STATIC_MODEL_FILE);
    expect([...model.embed('zzqxv', 'query')].every((value) => value === 0)).toBe(true);
    const folder = await mkdtemp(join(tmpdir(), 'loci-static-'));
    try {
      await writeFile(join(folder, 'bad.bin'), 'not a model at all');
      expect(() => loadStaticModel(join(folder, 'bad.bin'))).toThrow(expect.objectContaining({ code: 'EMBEDDER_UNAVAILABLE' }));
      expect(() => loadStaticModel(join(folder, 'missing.bin'))).toThrow(expect.objectContaining({ code: 'EMBEDDER_UNKNOWN' }));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
