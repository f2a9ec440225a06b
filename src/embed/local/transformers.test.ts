import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEmbedderContract } from '../test-support/embedder-contract.js';
import { writeTinyModelFolder } from './test-support/tiny-model-folder.js';
import { createTransformersEmbedder } from './transformers.js';

const topics = {
  json: ['json', 'parse', 'decode', 'read', 'file', 'disk', 'from', 'how', 'to', 'a', 'and'],
  cats: ['cat', 'sleeps', 'sofa', 'warm', 'the', 'on'],
  invoices: ['invoices', 'text', 'number', 'about', 'cats', 'first', 'second'],
};

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-onnx-'));
  await writeTinyModelFolder(join(folder, 'tiny-bert'), topics);
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describeEmbedderContract('transformers (tiny ONNX model built by the test)', async () => ({ model: await createTransformersEmbedder({ model: join(folder, 'tiny-bert'), dtype: 'fp32' }) }), {
  semantic: true,
});

describe('transformers embedder', () => {
  it('mean-pools and normalises (a one-topic sentence points along its topic)', async () => {
    const model = await createTransformersEmbedder({ model: join(folder, 'tiny-bert'), dtype: 'fp32' });
    expect(model.dimensions).toBe(8);
    const [vector] = (await model.doEmbed({ values: ['cat sleeps sofa'], purpose: 'document' })).embeddings as Float32Array[];
    const norm = Math.hypot(...vector!);
    expect(norm).toBeCloseTo(1, 5);
    expect(vector![1]).toBeGreaterThan(0.9);
  });

  it('reports a missing local folder or an unavailable offline model clearly, without network', async () => {
    await expect(createTransformersEmbedder({ model: join(folder, 'nope') })).rejects.toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
    await expect(createTransformersEmbedder({ model: 'Xenova/not-in-any-cache', offline: true, cacheDir: join(folder, 'empty-cache') })).rejects.toMatchObject({
      code: 'EMBEDDER_UNAVAILABLE',
    });
  });
});
