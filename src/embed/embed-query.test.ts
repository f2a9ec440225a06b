import { afterEach, describe, expect, it, vi } from 'vitest';
import { LociError } from '../errors/index.js';
import { embedQuery, QUERY_PROBE_EVERY_MS } from './embed-query.js';
import type { EmbeddingModel } from './spec.js';

afterEach(() => {
  vi.useRealTimers();
});

function flakyModel(): { model: EmbeddingModel; calls: () => number; heal: () => void } {
  let calls = 0;
  let down = true;
  const model = {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'flaky',
    dimensions: 2,
    maxEmbeddingsPerCall: 8,
    supportsParallelCalls: false,
    doEmbed: async ({ values }: { values: string[] }) => {
      calls++;
      if (down) throw new LociError('EMBEDDER_FAILED', 'The embedding server refused the connection.');
      return { embeddings: values.map(() => new Float32Array([1, 0])) };
    },
  } as unknown as EmbeddingModel;
  return { model, calls: () => calls, heal: () => void (down = false) };
}

describe('query embeddings while the embedder is down', () => {
  it('waits on a failing embedder once; later queries fail at once with the same provider error while one probe a while checks it, and the first probe that succeeds ends the outage', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { model, calls, heal } = flakyModel();
    await expect(embedQuery(model, 'first')).rejects.toMatchObject({ code: 'EMBEDDER_FAILED', category: 'provider' });
    const asked = calls();
    expect(asked).toBeGreaterThan(0);
    await expect(embedQuery(model, 'second')).rejects.toMatchObject({ code: 'EMBEDDER_FAILED', message: expect.stringContaining('still failing') });
    expect(calls()).toBe(asked); // not asked: too soon for a probe
    heal();
    vi.setSystemTime(Date.now() + QUERY_PROBE_EVERY_MS);
    // This query still answers at once (degraded) and sends the probe, which succeeds.
    await expect(embedQuery(model, 'third')).rejects.toMatchObject({ code: 'EMBEDDER_FAILED' });
    await vi.waitFor(() => expect(calls()).toBe(asked + 1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(Array.from(await embedQuery(model, 'fourth'))).toEqual([1, 0]);
    expect(calls()).toBe(asked + 2);
  });
});
