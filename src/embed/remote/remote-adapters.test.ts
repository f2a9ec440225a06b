import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/load.js';
import { embedMany } from '../embed-many.js';
import { registerBuiltInEmbedders } from '../providers.js';
import { resolveEmbedder } from '../registry.js';
import type { EmbeddingModel } from '../spec.js';
import { describeEmbedderContract } from '../test-support/embedder-contract.js';
import { FakeEmbeddingServer } from '../test-support/fake-embedding-server.js';
import { createGeminiEmbedder } from './gemini.js';
import { createOpenAICompatibleEmbedder } from './openai-compatible.js';
import { createVertexEmbedder } from './vertex.js';
import { createVoyageEmbedder } from './voyage.js';

type Factory = (baseUrl: string, dimensions: number, timeoutMs?: number) => EmbeddingModel;

const adapters: Record<string, Factory> = {
  'openai-compatible': (baseUrl, dimensions, timeoutMs) =>
    createOpenAICompatibleEmbedder({
      provider: 'openai',
      modelId: 'text-embedding-3-small',
      baseUrl: `${baseUrl}/v1`,
      dimensions,
      apiKey: 'sk-test',
      apiKeyEnv: 'OPENAI_API_KEY',
      maxEmbeddingsPerCall: 8,
      ...(timeoutMs ? { timeoutMs } : {}),
    }),
  vertex: (baseUrl, dimensions, timeoutMs) =>
    createVertexEmbedder({
      modelId: 'text-embedding-005',
      project: 'demo',
      location: 'us-central1',
      dimensions,
      accessToken: 'ya29.test',
      apiKeyEnv: 'GOOGLE_ACCESS_TOKEN',
      baseUrl,
      ...(timeoutMs ? { timeoutMs } : {}),
    }),
  gemini: (baseUrl, dimensions, timeoutMs) =>
    createGeminiEmbedder({ modelId: 'gemini-embedding-001', dimensions, apiKey: 'g-test', apiKeyEnv: 'GEMINI_API_KEY', baseUrl, ...(timeoutMs ? { timeoutMs } : {}) }),
  voyage: (baseUrl, dimensions, timeoutMs) =>
    createVoyageEmbedder({ modelId: 'voyage-code-3', dimensions, apiKey: 'pa-test', apiKeyEnv: 'VOYAGE_API_KEY', baseUrl: `${baseUrl}/v1`, ...(timeoutMs ? { timeoutMs } : {}) }),
};

for (const [name, create] of Object.entries(adapters)) {
  let server: FakeEmbeddingServer;
  describeEmbedderContract(
    name,
    async () => {
      server = await new FakeEmbeddingServer(16).start();
      return { model: create(server.baseUrl, 16), cleanup: () => server.stop() };
    },
    { semantic: false },
  );

  describe(`${name}: wire format and failures`, () => {
    let faulty: FakeEmbeddingServer;
    let model: EmbeddingModel;
    beforeAll(async () => {
      faulty = await new FakeEmbeddingServer(16).start();
      model = create(faulty.baseUrl, 16);
    });
    afterAll(() => faulty.stop());
    const embed = (values: string[], extra: Partial<Parameters<typeof embedMany>[0]> = {}) => embedMany({ model, values, purpose: 'query', retryBaseDelayMs: 1, ...extra });

    it('retries 429 and 5xx, then succeeds', async () => {
      faulty.failNext('rate-limit', 'server-error');
      const before = faulty.requests.length;
      const result = await embed(['hello']);
      expect(result.embeddings[0]).toHaveLength(16);
      expect(faulty.requests.length - before).toBe(3);
    });

    it('gives up after the attempt limit with a clear error', async () => {
      faulty.failNext('server-error', 'server-error');
      await expect(embed(['x'], { maxAttempts: 2 })).rejects.toMatchObject({ code: 'EMBEDDER_FAILED', message: expect.stringContaining('503') });
    });

    it('retries a request that times out', async () => {
      const impatient = create(faulty.baseUrl, 16, 200);
      faulty.failNext('slow');
      const before = faulty.requests.length;
      const result = await embedMany({ model: impatient, values: ['x'], purpose: 'query', retryBaseDelayMs: 1 });
      expect(result.embeddings).toHaveLength(1);
      expect(faulty.requests.length - before).toBe(2);
    });

    it('stops at once when the caller aborts', async () => {
      faulty.failNext('slow');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = performance.now();
      await expect(embedMany({ model, values: ['x'], purpose: 'query', abortSignal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
      expect(performance.now() - started).toBeLessThan(1500);
    });

    it('explains malformed replies', async () => {
      faulty.failNext('not-json');
      await expect(embed(['x'], { maxAttempts: 1 })).rejects.toMatchObject({ code: 'EMBEDDER_FAILED', message: expect.stringMatching(/not JSON/) });
      faulty.failNext('missing-field');
      await expect(embed(['x'], { maxAttempts: 1 })).rejects.toMatchObject({ code: 'EMBEDDER_FAILED' });
      faulty.failNext('wrong-count');
      await expect(embed(['a', 'b'], { maxAttempts: 1 })).rejects.toMatchObject({ code: 'EMBEDDER_FAILED', message: expect.stringMatching(/1 embeddings for 2 inputs/) });
    });

    it('reports a dimension mismatch', async () => {
      faulty.failNext('wrong-dimensions');
      await expect(embed(['x'], { maxAttempts: 1 })).rejects.toMatchObject({ code: 'DIMENSION_MISMATCH' });
    });

    it('reports a refused key without retrying, naming the variable', async () => {
      faulty.failNext('unauthorized');
      const before = faulty.requests.length;
      const error = await embed(['x']).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'EMBEDDER_AUTH', hint: expect.stringMatching(/_(KEY|TOKEN)/) });
      expect(faulty.requests.length - before).toBe(1);
    });

    it('sends the key and the purpose the provider expects', async () => {
      await embedMany({ model, values: ['q'], purpose: 'query' });
      const request = faulty.requests[faulty.requests.length - 1]!;
      const auth = String(request.headers.authorization ?? request.headers['x-goog-api-key'] ?? '');
      expect(auth.length).toBeGreaterThan(3);
      const body = JSON.stringify(request.body);
      if (name === 'voyage') expect(request.body.input_type).toBe('query');
      if (name === 'vertex' || name === 'gemini') expect(body).toContain('RETRIEVAL_QUERY');
      if (name === 'vertex') expect(request.path).toMatch(/\/v1\/projects\/demo\/locations\/us-central1\/publishers\/google\/models\/text-embedding-005:predict$/);
    });
  });
}

describe('provider registry', () => {
  registerBuiltInEmbedders();
  const config = (values: Record<string, unknown> = {}) => resolveConfig([{ origin: 'test', values }]);

  it('refuses an unknown embedder, listing the known ones', async () => {
    await expect(resolveEmbedder('bogus:model', { config: config(), env: {} })).rejects.toMatchObject({ code: 'EMBEDDER_UNKNOWN', message: expect.stringMatching(/openai.*ollama/) });
  });

  it('needs OpenAI keys from the environment, never from config', async () => {
    await expect(resolveEmbedder('openai:text-embedding-3-small', { config: config(), env: {} })).rejects.toMatchObject({ code: 'EMBEDDER_AUTH', message: expect.stringContaining('OPENAI_API_KEY') });
    const model = await resolveEmbedder('openai:text-embedding-3-small', { config: config(), env: { OPENAI_API_KEY: 'sk' } });
    expect(model?.dimensions).toBe(1536);
  });

  it('learns the dimensions of an unknown model from one probe, and explains an unreachable server', async () => {
    const server = await new FakeEmbeddingServer(24).start();
    try {
      const model = await resolveEmbedder('ollama:my-custom-embedder', { config: config({ embedderOptions: { baseUrl: `${server.baseUrl}/v1` } }), env: {} });
      expect(model?.dimensions).toBe(24);
    } finally {
      await server.stop();
    }
    await expect(resolveEmbedder('ollama:another-model', { config: config({ embedderOptions: { baseUrl: 'http://127.0.0.1:9/v1' } }), env: {} })).rejects.toMatchObject({
      code: 'EMBEDDER_FAILED',
      message: expect.stringContaining('Cannot reach'),
    });
  });

  it('rejects a bad base URL in config', () => {
    expect(() => config({ embedderOptions: { baseUrl: 'not a url' } })).toThrow(/embedderOptions\.baseUrl/);
  });
});
