import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContext } from '../context/build-context.js';
import type { Reranker } from '../context/rerank/spec.js';
import { FakeEmbeddingServer } from '../embed/test-support/fake-embedding-server.js';
import { LociError } from '../errors/index.js';
import type { InteractionLog } from '../memory/memory.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { createLoci, type Loci } from './create-loci.js';

// Degrade, never lose: one long-lived engine (as `loci serve` keeps) while its embedder is
// killed mid-run and brought back. The embedder is a fake OpenAI-compatible server on 127.0.0.1
// whose model size is unknown to loci, so only the size recorded at index time avoids a probe.
let root: string;
let embedder: FakeEmbeddingServer;
let loci: Loci;

const configFor = (server: FakeEmbeddingServer) => ({ embedder: 'openai-compatible:fake-embed', embedderOptions: { baseUrl: `${server.baseUrl}/v1` }, indexing: { worker: false } });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-degraded-'));
  await mkdir(join(root, 'src'));
  const topics = ['refund', 'invoice', 'shipping', 'login', 'search', 'report'];
  for (const [index, topic] of topics.entries()) {
    await writeFile(
      join(root, 'src', `${topic}.ts`),
      `/** Handles the ${topic} flow. */\nexport function ${topic}Step${index}(amount: number): number {\n  // ${topic} charge and ledger entry\n  return amount * ${index + 1};\n}\n`,
    );
  }
  embedder = await new FakeEmbeddingServer(16).start();
  loci = createLoci({ root, config: configFor(embedder), env: {} });
  await loci.index();
});

afterAll(async () => {
  await loci.close();
  await embedder.stop();
  await rm(root, { recursive: true, force: true });
});

describe('an embedder outage mid-run', () => {
  it('degrades hybrid search, context and recall to lexical, and loses no memory record', async () => {
    const healthy = await loci.search('refund charge');
    expect(healthy.degraded).toBe(false);
    expect(healthy.results.some((result) => result.signals.vector !== undefined)).toBe(true);
    const memory = await loci.memory();
    await memory.add({ namespace: 'ops', text: 'Refunds are batched every night at two.' });

    const port = embedder.port;
    await embedder.stop(); // killed

    const search = await loci.search('refund charge');
    expect(search.degradedParts).toEqual(['vector']);
    expect(search.warnings.join('\n')).toMatch(/embedder failed.*lexical signals only.*Cannot reach openai-compatible:fake-embed/s);
    expect(search.results[0]?.path).toBe('src/refund.ts');
    // The next hybrid search does not wait on the embedder again: it degrades at once.
    expect((await loci.search('refund charge')).warnings.join('\n')).toMatch(/still failing; checked again in the background/);
    await expect(loci.search('refund charge', { mode: 'vector' })).rejects.toMatchObject({ code: 'EMBEDDER_FAILED' });

    const context = await buildContext(loci, 'how is a refund charged', { smallProject: false, maxTokens: 1500 });
    expect(context.degradedParts).toEqual(['vector']);
    expect(context.sources.map((source) => source.path)).toContain('src/refund.ts');
    expect(context.warnings.join('\n')).toMatch(/embedder failed/);

    const stored = await memory.add({ namespace: 'ops', text: 'The refund ledger lives in the billing database.' });
    expect(stored.warnings?.join('\n')).toMatch(/Stored without a vector: the embedder failed/);
    const recalled = await memory.recallResponse('refund ledger billing', { namespaces: ['ops'] });
    expect(recalled.degradedParts).toEqual(['vector']);
    expect(recalled.hits[0]?.record.id).toBe(stored.id);

    // Back on the same port: searches find it again within a probe interval (they never wait on
    // it meanwhile), and the next write embeds what was stored without vectors.
    embedder = await new FakeEmbeddingServer(16).start(port);
    let recovered = false;
    for (let tries = 0; tries < 60 && !recovered; tries++) {
      recovered = !(await loci.search('refund charge')).degraded;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(recovered).toBe(true);
    expect((await memory.recallResponse('refund ledger', { namespaces: ['ops'], mode: 'vector' })).hits.map((hit) => hit.record.id)).not.toContain(stored.id);
    await memory.add({ namespace: 'ops', text: 'Invoices go out on the first of the month.' });
    const vectorHits = await memory.recallResponse('refund ledger billing database', { namespaces: ['ops'], mode: 'vector', topK: 10 });
    expect(vectorHits.hits.map((hit) => hit.record.id)).toContain(stored.id);
  });

  it('embeds what no later write or recall reached on `gc`, and reports what still waits', async () => {
    const memory = await loci.memory();
    const port = embedder.port;
    await embedder.stop();
    const stored = await memory.logInteraction({ namespace: 'unity/s1', prompt: 'add a red light', response: 'done', outcome: 'success' });
    expect(stored.warnings).toHaveLength(1);
    const stillDown = await loci.gc();
    expect(stillDown.embeddedMemories).toBe(0);
    expect(stillDown.warnings.join('\n')).toMatch(/1 memory record\(s\) stored without vectors could not be embedded/);

    embedder = await new FakeEmbeddingServer(16).start(port);
    const summary = await loci.gc();
    expect(summary.embeddedMemories).toBe(1);
    expect(summary.warnings).toEqual([]);
    const hits = await memory.recallResponse('red light', { namespaces: ['unity/s1'], mode: 'vector' });
    expect(hits.hits[0]?.record.id).toBe(stored.id);
  });

  it('never sets up or calls the embedder for a lexical search, even in a new process', async () => {
    await embedder.stop();
    const before = embedder.requests.length;
    const fresh = createLoci({ root, config: configFor(embedder), env: {} });
    try {
      const response = await fresh.search('refund charge', { mode: 'lexical' });
      expect(response).toMatchObject({ degraded: false, warnings: [] });
      expect(response.results[0]?.path).toBe('src/refund.ts');
      // Hybrid in a new process: the recorded size sets the model up without a probe, then the call fails and degrades.
      expect((await fresh.search('refund charge')).degradedParts).toEqual(['vector']);
    } finally {
      await fresh.close();
    }
    expect(embedder.requests.length).toBe(before);
    embedder = await new FakeEmbeddingServer(16).start(embedder.port);
  });

  it('keeps the retrieval order when the reranker fails, and says so', async () => {
    const failing: Reranker = {
      specificationVersion: 'v1',
      provider: 'cohere',
      modelId: 'rerank-test',
      doRerank: async () => {
        throw Object.assign(new Error('Cannot reach the cohere reranker'), { code: 'LLM_FAILED' });
      },
    };
    const plain = await buildContext(loci, 'how is a refund charged', { smallProject: false, topK: 3 });
    const reranked = await buildContext(loci, 'how is a refund charged', { smallProject: false, topK: 3, reranker: failing });
    expect(reranked.sources).toEqual(plain.sources);
    expect(reranked.degradedParts).toEqual(['reranker']);
    expect(reranked.warnings.join('\n')).toMatch(/reranker cohere:rerank-test failed, so the retrieval order was kept: Cannot reach/);
  });
});

describe('a memory whose embedder was never reached', () => {
  it('keeps records without vectors, says so, and embeds them all once a process sets the embedder up', async () => {
    const store = join(root, '.loci-fresh-memory');
    const down = new FakeEmbeddingServer(16);
    await down.start();
    const port = down.port;
    await down.stop(); // the model's size is unknown and cannot be asked
    const first = createLoci({ root, store, config: configFor(down), env: {} });
    const memory = await first.memory();
    const record = await memory.add({ namespace: 'boss', text: 'The boss is weak to ice.' });
    expect(record.warnings?.join('\n')).toMatch(/Stored without a vector: the embedder failed.*Cannot reach/s);
    const recalled = await memory.recallResponse('weak to ice');
    expect(recalled).toMatchObject({ degraded: true, degradedParts: ['vector'], hits: [{ record: { id: record.id } }] });
    await expect(memory.recallResponse('weak to ice', { mode: 'vector' })).rejects.toMatchObject({ code: 'EMBEDDER_FAILED' });
    await first.close();

    const up = await new FakeEmbeddingServer(16).start(port);
    const second = createLoci({ root, store, config: configFor(up), env: {} });
    try {
      const hits = await (await second.memory()).recallResponse('weak to ice', { mode: 'vector' });
      expect(hits.hits.map((hit) => hit.record.id)).toEqual([record.id]);
    } finally {
      await second.close();
      await up.stop();
    }
  });
});

describe("the caller's own result", () => {
  it('is never replaced by a failure to log it', async () => {
    const memory = await loci.memory();
    const store = memory.records.store;
    const writeFiles = store.writeFiles.bind(store);
    store.writeFiles = async () => {
      throw new LociError('STORE_BUSY', 'Another process holds the store.');
    };
    let log: InteractionLog | undefined;
    try {
      const result = await memory.withInteraction({ namespace: 'unity/s9', prompt: 'add a blue light' }, async (given) => {
        log = given;
        return 'created Light 2';
      });
      expect(result).toBe('created Light 2');
      expect(log?.warnings).toEqual(['The interaction was not logged: Another process holds the store.']);
      // A failing command keeps its own error, not the logging one.
      await expect(memory.withInteraction({ namespace: 'unity/s9', prompt: 'x' }, async () => Promise.reject(new Error('Light not found')))).rejects.toThrow('Light not found');
    } finally {
      store.writeFiles = writeFiles;
    }
  });
});

describe('memory records written while the embedder is down', () => {
  it('are marked pending in the catalog until embedded', async () => {
    const memory = await loci.memory();
    const port = embedder.port;
    await embedder.stop();
    const record = await memory.add({ namespace: 'pending-check', text: 'A note written during the outage.' });
    await loci.close(); // flushes; the catalog shows the mark another process would see
    const direct = openSqliteStore({ file: join(root, '.loci', 'memory.db') });
    const entry = (await direct.listCatalog()).find((candidate) => candidate.path.endsWith(`/#${record.id}`));
    await direct.close();
    expect(entry?.embedder).toBe('pending');
    embedder = await new FakeEmbeddingServer(16).start(port);
    loci = createLoci({ root, config: configFor(embedder), env: {} });
  });
});
