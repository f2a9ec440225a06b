import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, resolveConfig } from '../../config/load.js';
import { embedMany } from '../embed-many.js';
import { registerBuiltInEmbedders } from '../providers.js';
import { resolveEmbedder } from '../registry.js';
import type { EmbeddingModel } from '../spec.js';
import { FakeEmbeddingServer } from '../test-support/fake-embedding-server.js';
import { commandToken, parseTokenOutput } from './access-token.js';
import { createVertexEmbedder } from './vertex.js';

// Providers as users configure them, against loopback servers that speak each wire format.
registerBuiltInEmbedders();
const config = (values: Record<string, unknown> = {}) => resolveConfig([{ origin: 'test', values }]);
let server: FakeEmbeddingServer;
let workspace: string;
beforeAll(async () => {
  server = await new FakeEmbeddingServer(16).start();
  workspace = mkdtempSync(join(tmpdir(), 'loci-provider-options-'));
});
afterAll(async () => {
  await server.stop();
  rmSync(workspace, { recursive: true, force: true });
});
beforeEach(() => {
  server.requests.length = 0;
  server.delayMs = 0;
  server.maxInFlight = 0;
});

describe('Voyage', () => {
  const voyage = (model: string, options: Record<string, unknown> = {}) =>
    resolveEmbedder(`voyage:${model}`, { config: config({ embedderOptions: { baseUrl: `${server.baseUrl}/v1`, ...options } }), env: { VOYAGE_API_KEY: 'pa-test' } });

  it('knows each model’s size without a request (voyage-code-2 is 1536)', async () => {
    const sizes: Record<string, number> = { 'voyage-code-2': 1536, 'voyage-large-2': 1536, 'voyage-3-lite': 512, 'voyage-code-3': 1024, 'voyage-3.5': 1024, 'voyage-law-2': 1024 };
    for (const [model, size] of Object.entries(sizes)) expect((await voyage(model))?.dimensions, model).toBe(size);
    expect(server.requests).toHaveLength(0);
  });

  it('sends output_dimension only when the user set dimensions', async () => {
    const model = await voyage('voyage-my-own');
    expect(server.requests).toHaveLength(1); // an unknown model is asked its size once…
    expect(model?.dimensions).toBe(16);
    await embedMany({ model: model as EmbeddingModel, values: ['a query'], purpose: 'query' });
    for (const request of server.requests) expect(request.body).not.toHaveProperty('output_dimension'); // …and never told one
    const shortened = await voyage('voyage-3.5', { dimensions: 16 });
    await embedMany({ model: shortened as EmbeddingModel, values: ['a query'], purpose: 'query' });
    expect(server.requests.at(-1)?.body).toMatchObject({ output_dimension: 16, input_type: 'query', model: 'voyage-3.5' });
  });
});

describe('sizes recorded in the store', () => {
  it('are used instead of probing, for the same provider and model only', async () => {
    const context = (recordedEmbedderId: string) => ({ config: config({ embedderOptions: { baseUrl: `${server.baseUrl}/v1` } }), env: {}, recordedEmbedderId });
    expect((await resolveEmbedder('ollama:my-custom', context('ollama:my-custom@24')))?.dimensions).toBe(24);
    expect(server.requests).toHaveLength(0);
    expect((await resolveEmbedder('ollama:my-custom', context('ollama:another@24')))?.dimensions).toBe(16);
    expect(server.requests).toHaveLength(1);
  });

  it('and model tags do not hide a known size (the Go agent’s ai/mxbai-embed-large:latest)', async () => {
    expect((await resolveEmbedder('docker:ai/mxbai-embed-large:latest', { config: config(), env: {} }))?.dimensions).toBe(1024);
  });
});

describe('embedderOptions.concurrency', () => {
  it('is how many requests are in flight at once (counted by the server)', async () => {
    server.delayMs = 150;
    for (const concurrency of [1, 2, 5]) {
      server.maxInFlight = 0;
      const model = await resolveEmbedder('openai-compatible:counted', {
        config: config({ embedderOptions: { baseUrl: `${server.baseUrl}/v1`, dimensions: 16, batchSize: 1, concurrency } }),
        env: {},
      });
      await embedMany({ model: model as EmbeddingModel, values: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], purpose: 'document' });
      expect(server.maxInFlight, `concurrency ${concurrency}`).toBe(concurrency);
    }
  });
});

describe('Vertex access tokens', () => {
  /** A token command: a script that prints token-1, token-2, … (or JSON), counting its runs in a file. */
  const tokenScript = (name: string, json = false) => {
    const counter = join(workspace, `${name}.count`);
    const script = join(workspace, `${name}.mjs`);
    writeFileSync(counter, '0');
    writeFileSync(
      script,
      `import { readFileSync, writeFileSync } from 'node:fs';
const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
writeFileSync(${JSON.stringify(counter)}, String(n));
console.log(${json ? "JSON.stringify({ access_token: 'ya29.json-' + n, expires_in: 120 })" : "'ya29.token-' + n"});`,
    );
    return [process.execPath, script];
  };

  it('come from a command, re-run shortly before the token expires', async () => {
    let clock = 1_000_000;
    const source = commandToken({ command: tokenScript('plain'), lifetimeSeconds: 600, env: { PATH: process.env.PATH }, now: () => clock });
    expect(await source.token()).toBe('ya29.token-1');
    clock += 400_000;
    expect(await source.token()).toBe('ya29.token-1'); // still well within its 600 s
    clock += 150_000; // 550 s: inside the last minute (a tenth of the lifetime)
    expect(await source.token()).toBe('ya29.token-2');
    expect(await source.token({ refresh: true })).toBe('ya29.token-3');
  });

  it('read expires_in from JSON output, and share one run between concurrent callers', async () => {
    let clock = 0;
    const source = commandToken({ command: tokenScript('json', true), lifetimeSeconds: 3600, env: { PATH: process.env.PATH }, now: () => clock });
    expect(await Promise.all([source.token(), source.token(), source.token()])).toEqual(['ya29.json-1', 'ya29.json-1', 'ya29.json-1']);
    clock = 110_000; // expires_in 120 s wins over the configured hour
    expect(await source.token()).toBe('ya29.json-2');
  });

  it('explain a command that fails or prints no token', async () => {
    const failing = commandToken({ command: [process.execPath, '-e', 'process.stderr.write("not logged in"); process.exit(3)'], lifetimeSeconds: 3600, env: { PATH: process.env.PATH } });
    await expect(failing.token()).rejects.toMatchObject({ code: 'EMBEDDER_AUTH', message: expect.stringMatching(/failed \(exit 3\): not logged in/) });
    const missing = commandToken({ command: 'no-such-command-for-loci print-token', lifetimeSeconds: 3600, env: { PATH: process.env.PATH } });
    await expect(missing.token()).rejects.toMatchObject({ code: 'EMBEDDER_AUTH', message: expect.stringContaining('not found') });
    expect(() => parseTokenOutput('\n', 'x')).toThrow(/printed no token/);
    expect(parseTokenOutput('WARNING: something\nya29.abcdefghij\n', 'x')).toEqual({ token: 'ya29.abcdefghij' });
  });

  it('are renewed once when Vertex refuses one (401), and sent as the bearer token', async () => {
    const source = commandToken({ command: tokenScript('vertex'), lifetimeSeconds: 3600, env: { PATH: process.env.PATH } });
    const model = createVertexEmbedder({
      modelId: 'text-embedding-005',
      project: 'demo',
      location: 'us-central1',
      dimensions: 16,
      accessToken: source,
      apiKeyEnv: 'GOOGLE_ACCESS_TOKEN',
      baseUrl: server.baseUrl,
    });
    await embedMany({ model, values: ['x'], purpose: 'query' });
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer ya29.token-1');
    server.failNext('unauthorized');
    await embedMany({ model, values: ['y'], purpose: 'query' });
    expect(server.requests.slice(-2).map((request) => request.headers.authorization)).toEqual(['Bearer ya29.token-1', 'Bearer ya29.token-2']);
  });

  it('come from the configured command before GOOGLE_ACCESS_TOKEN', async () => {
    const command = tokenScript('registry');
    const model = await resolveEmbedder('vertex:text-embedding-005', {
      config: config({ embedderOptions: { baseUrl: server.baseUrl, project: 'demo', dimensions: 16, tokenCommand: command } }),
      env: { GOOGLE_ACCESS_TOKEN: 'ya29.stale', PATH: process.env.PATH },
    });
    await embedMany({ model: model as EmbeddingModel, values: ['x'], purpose: 'query' });
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer ya29.token-1');
    const fromVariable = await resolveEmbedder('vertex:text-embedding-005', {
      config: config({ embedderOptions: { baseUrl: server.baseUrl, project: 'demo', dimensions: 16 } }),
      env: { GOOGLE_ACCESS_TOKEN: 'ya29.from-env' },
    });
    await embedMany({ model: fromVariable as EmbeddingModel, values: ['x'], purpose: 'query' });
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer ya29.from-env');
  });

  it('never come from a command a folder config names (untrusted)', () => {
    const folder = mkdtempSync(join(workspace, 'folder-'));
    writeFileSync(join(folder, 'loci.config.json'), JSON.stringify({ embedderOptions: { tokenCommand: 'touch /tmp/loci-pwned' } }));
    expect(() => loadConfig({ folder })).toThrow(expect.objectContaining({ code: 'CONFIG_UNTRUSTED', message: expect.stringContaining('runs a command on your machine') }));
  });
});

describe("the seed agents' variable names", () => {
  it('are accepted as aliases (the Go agent: EMBEDDING_MODEL, SIMILARITY_LIMIT, SIMILARITY_MAX_RESULTS)', () => {
    const go = { EMBEDDING_MODEL: 'ai/mxbai-embed-large:latest', SIMILARITY_LIMIT: '0.7', SIMILARITY_MAX_RESULTS: '3' };
    const config = loadConfig({ env: go });
    expect(config.embedder).toBe('docker:ai/mxbai-embed-large:latest');
    expect(config.memory).toMatchObject({ knowledgeThreshold: 0.7, knowledgeTopK: 3 });
    expect(loadConfig({ env: { EMBEDDING_MODEL: 'ollama:nomic-embed-text' } }).embedder).toBe('ollama:nomic-embed-text');
  });

  it("lose to loci's own names, and name themselves in errors", () => {
    expect(loadConfig({ env: { EMBEDDING_MODEL: 'ai/x', LOCI_EMBEDDER: 'static' } }).embedder).toBe('static');
    const file = join(workspace, 'user-config.json');
    writeFileSync(file, JSON.stringify({ memory: { knowledgeTopK: 5 } }));
    expect(loadConfig({ configFile: file, env: { SIMILARITY_MAX_RESULTS: '3' } }).memory.knowledgeTopK).toBe(5);
    expect(() => loadConfig({ env: { SIMILARITY_LIMIT: 'high' } })).toThrow(/memory\.knowledgeThreshold \(from SIMILARITY_LIMIT \(alias of LOCI_MEMORY_KNOWLEDGE_THRESHOLD\)\)/);
  });
});

describe('an embedder spec that names nothing', () => {
  it('suggests the provider a typo meant, and tells a static model name from a model file', async () => {
    const context = { config: config(), env: {} };
    await expect(resolveEmbedder('sttaic', context)).rejects.toMatchObject({ code: 'EMBEDDER_UNKNOWN', message: expect.stringContaining('Did you mean "static"?') });
    await expect(resolveEmbedder('OpenAI:text-embedding-3-small', context)).rejects.toMatchObject({ message: expect.stringContaining('Did you mean "openai:text-embedding-3-small"?') });
    await expect(resolveEmbedder('static:loci-static-v2', context)).rejects.toMatchObject({
      code: 'EMBEDDER_UNKNOWN',
      message: expect.stringContaining('the model shipped with loci is "loci-static-v1"'),
      hint: expect.stringContaining('static:./<model-file>'),
    });
    await expect(resolveEmbedder(`static:${join(workspace, 'missing.bin')}`, context)).rejects.toMatchObject({
      code: 'EMBEDDER_UNKNOWN',
      hint: expect.stringContaining('written by scripts/embedder/train.py'),
    });
    expect((await resolveEmbedder('static:loci-static-v1', context))?.modelId).toBe('loci-static-v1');
  });
});
