import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedMany } from '../embed-many.js';
import type { EmbeddingModel } from '../spec.js';

export interface EmbedderHarness {
  model: EmbeddingModel;
  cleanup?: () => Promise<void>;
}

/** Cosine of two vectors of any length (in f64). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let index = 0; index < a.length; index++) {
    dot += (a[index] as number) * (b[index] as number);
    na += (a[index] as number) ** 2;
    nb += (b[index] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

/**
 * What every embedder adapter must do (Hono's runTest pattern): declare its shape, return
 * one finite vector of the declared size per input, in input order, across batches.
 * `semantic` adapters must also put paraphrases closer than unrelated text.
 */
export function describeEmbedderContract(name: string, open: () => Promise<EmbedderHarness>, options: { semantic: boolean }): void {
  describe(`embedder contract: ${name}`, () => {
    let harness: EmbedderHarness;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => {
      await harness.cleanup?.();
    });

    it('declares the v1 spec', () => {
      const { model } = harness;
      expect(model.specificationVersion).toBe('v1');
      expect(model.provider).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(model.modelId.length).toBeGreaterThan(0);
      expect(model.dimensions).toBeGreaterThan(0);
      expect(model.maxEmbeddingsPerCall).toBeGreaterThan(0);
    });

    it('returns one finite vector of the declared size per input', async () => {
      const { embeddings } = await harness.model.doEmbed({ values: ['first text', 'second text', ''], purpose: 'document' });
      expect(embeddings).toHaveLength(3);
      for (const vector of embeddings.slice(0, 2)) {
        expect(vector.length).toBe(harness.model.dimensions);
        expect([...vector].every(Number.isFinite)).toBe(true);
      }
    });

    it('keeps input order across batches', async () => {
      const values = Array.from({ length: Math.min(harness.model.maxEmbeddingsPerCall * 2 + 3, 300) }, (_, index) => `text number ${index} about ${index % 7 === 0 ? 'cats' : 'invoices'}`);
      const { embeddings } = await embedMany({ model: harness.model, values, purpose: 'document', maxConcurrency: 3 });
      for (const index of [0, 1, values.length - 1]) {
        const single = (await harness.model.doEmbed({ values: [values[index] as string], purpose: 'document' })).embeddings[0] as number[] | Float32Array;
        expect(cosine(embeddings[index] as Float32Array, Float32Array.from(single))).toBeCloseTo(1, 4);
      }
    });

    if (options.semantic) {
      it('puts paraphrases closer than unrelated texts', async () => {
        const { embeddings } = await embedMany({
          model: harness.model,
          values: ['how to parse a json file', 'read and decode json from disk', 'the cat sleeps on the warm sofa'],
          purpose: 'document',
        });
        const [a, b, c] = embeddings as [Float32Array, Float32Array, Float32Array];
        expect(cosine(a, b)).toBeGreaterThan(cosine(a, c));
      });
    }
  });
}
