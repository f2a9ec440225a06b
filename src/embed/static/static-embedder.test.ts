import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEmbedderContract } from '../test-support/embedder-contract.js';
import { createStaticEmbedder, DEFAULT_STATIC_MODEL_FILE } from './static-embedder.js';
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

  it('gives a zero vector for text with no known words, and refuses a file that is not a model', async () => {
    const model = loadStaticModel(DEFAULT_STATIC_MODEL_FILE);
    expect([...model.embed('zzqxv', 'query')].every((value) => value === 0)).toBe(true);
    const folder = await mkdtemp(join(tmpdir(), 'loci-static-'));
    try {
      await writeFile(join(folder, 'bad.bin'), 'not a model at all');
      expect(() => loadStaticModel(join(folder, 'bad.bin'))).toThrow(expect.objectContaining({ code: 'EMBEDDER_UNAVAILABLE' }));
      expect(() => loadStaticModel(join(folder, 'missing.bin'))).toThrow(expect.objectContaining({ code: 'EMBEDDER_UNAVAILABLE' }));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
