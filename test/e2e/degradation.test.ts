import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEmbeddingServer } from '../../src/embed/test-support/fake-embedding-server.js';
import { FakeChatServer } from '../../src/llm/test-support/fake-chat-server.js';
import { runLoci } from '../support/run-cli.js';
import { startServer } from '../support/serve.js';
import { writeSampleRepo } from '../support/sample-repo.js';

// Degrade, never lose, as a user meets it: the built CLI against fake OpenAI-compatible
// servers on 127.0.0.1 that the test kills mid-run and brings back.
let workspace: string;
let repo: string;
let embedder: FakeEmbeddingServer;
const chat = new FakeChatServer();

const embedderEnv = () => ({ LOCI_EMBEDDER: 'openai-compatible:fake-embed', LOCI_EMBEDDER_OPTIONS_BASE_URL: `${embedder.baseUrl}/v1` });
const chatEnv = () => ({ LOCI_LLM_BASE_URL: chat.baseUrl, LOCI_LLM_MODEL: 'tiny-test' });
const loci = (args: string[], env: Record<string, string> = {}) => runLoci([...args, '--root', repo], { cwd: workspace, env: { ...embedderEnv(), ...env } });
const json = (run: { stdout: string }) => JSON.parse(run.stdout);

/** Kills the embedding server, runs `during`, then starts a new one on the same port. */
async function withEmbedderDown(during: () => Promise<void>): Promise<void> {
  const port = embedder.port;
  await embedder.stop();
  try {
    await during();
  } finally {
    embedder = await new FakeEmbeddingServer(16).start(port);
  }
}

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-degradation-'));
  repo = join(workspace, 'repo');
  await mkdir(repo);
  await writeSampleRepo(repo);
  embedder = await new FakeEmbeddingServer(16).start();
  await chat.start();
  const indexed = await runLoci(['index', repo], { cwd: workspace, env: embedderEnv() });
  expect(indexed.stderr).toBe('');
  expect(indexed.code).toBe(0);
});

afterAll(async () => {
  await embedder.stop();
  await chat.stop();
  await rm(workspace, { recursive: true, force: true });
});

describe('an embedder outage', () => {
  it('search, context and recall answer lexically with a warning and "degraded" (exit 0); lexical mode does not notice', async () => {
    expect(json(await loci(['search', 'refund', '--json'])).degraded).toBe(false);
    await loci(['memory', 'add', 'Refunds', 'are', 'batched', 'nightly', '--namespace', 'ops']);
    await withEmbedderDown(async () => {
      const search = await loci(['search', 'refund', '--json']);
      expect(search.code).toBe(0);
      expect(json(search)).toMatchObject({ degraded: true, degradedParts: ['vector'], warnings: [expect.stringMatching(/embedder failed.*lexical signals only/)] });
      expect(json(search).results.length).toBeGreaterThan(0);
      const human = await loci(['search', 'refund']);
      expect(human.code).toBe(0);
      // Warnings go to stderr (as every command gives them), so piped results stay results.
      expect(human.stderr).toMatch(/warning: The embedder failed/);
      expect(human.stdout).not.toMatch(/warning:/);

      const lexical = await loci(['search', 'refund', '--mode', 'lexical', '--json']);
      expect(lexical.code).toBe(0);
      expect(json(lexical)).toMatchObject({ degraded: false, warnings: [] });

      const context = await loci(['context', 'how', 'are', 'refunds', 'issued', '--no-small-project', '--json']);
      expect(context.code).toBe(0);
      expect(json(context)).toMatchObject({ degraded: true, degradedParts: ['vector'], warnings: [expect.stringMatching(/embedder failed/)] });
      expect(json(context).sources.length).toBeGreaterThan(0);

      const recall = await loci(['memory', 'search', 'refunds', 'batched', '--namespace', 'ops', '--json']);
      expect(recall.code).toBe(0);
      expect(json(recall)).toMatchObject({ degraded: true, degradedParts: ['vector'], results: [{ text: 'Refunds are batched nightly' }] });
    });
  });

  it('memory written meanwhile is kept without a vector and embedded by a later write or `loci gc`', async () => {
    await withEmbedderDown(async () => {
      const added = await loci(['memory', 'add', 'The', 'ledger', 'lives', 'in', 'billing', '--namespace', 'outage', '--json']);
      expect(added.code).toBe(0);
      expect(added.stderr).toMatch(/Stored without a vector: the embedder failed/);
      const gc = await loci(['gc', '--json']);
      expect(gc.code).toBe(0);
      expect(json(gc)).toMatchObject({ embeddedMemories: 0, warnings: [expect.stringMatching(/could not be embedded/)] });
    });
    const vectorOnly = (words: string) => loci(['memory', 'search', ...words.split(' '), '--namespace', 'outage', '--mode', 'vector', '--json']);
    const gc = await loci(['gc', '--json']);
    expect(json(gc)).toMatchObject({ embeddedMemories: 1, warnings: [] });
    expect(json(await vectorOnly('ledger billing')).results.map((hit: { text: string }) => hit.text)).toEqual(['The ledger lives in billing']);

    // Or by the next recall that reaches the embedder: it answers, then embeds what waits.
    await withEmbedderDown(async () => {
      expect((await loci(['memory', 'add', 'Payouts', 'settle', 'on', 'Fridays', '--namespace', 'outage'])).stderr).toMatch(/Stored without a vector/);
    });
    expect(json(await vectorOnly('payouts settle fridays')).results.map((hit: { text: string }) => hit.text)).not.toContain('Payouts settle on Fridays');
    expect(json(await vectorOnly('payouts settle fridays')).results.map((hit: { text: string }) => hit.text)).toContain('Payouts settle on Fridays');
  });

  it('`loci ask` still answers, and keeps the interaction and the turn', async () => {
    chat.answer = () => 'Refunds go through the gateway [1].';
    await withEmbedderDown(async () => {
      const run = await loci(['ask', 'how', 'do', 'refunds', 'work', '--conversation', 'c-outage', '--json'], chatEnv());
      expect(run.code).toBe(0);
      expect(json(run)).toMatchObject({ answer: 'Refunds go through the gateway [1].', degraded: true, degradedParts: ['vector'] });
      expect(run.stderr).toMatch(/Stored without a vector/);
    });
    const turns = json(await loci(['memory', 'list', '--namespace', 'conversations/c-outage', '--json'])).records;
    expect(turns[0].fields).toMatchObject({ userQuery: 'how do refunds work', assistantResponse: 'Refunds go through the gateway [1].' });
    const logged = json(await loci(['memory', 'list', '--namespace', 'loci/ask', '--json'])).records;
    expect(logged.at(-1).fields).toMatchObject({ prompt: 'how do refunds work', outcome: 'success' });
  });
});

describe('over HTTP (a long-lived `loci serve`)', () => {
  it('search, context, remember and recall go on while the embedder is down, and catch up when it is back', async () => {
    const { process: served, base } = await startServer(['--root', repo], { cwd: workspace, env: embedderEnv() });
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    };
    try {
      expect((await post('/v1/search', { query: 'refund' })).body.degraded).toBe(false);
      let stored = '';
      await withEmbedderDown(async () => {
        const search = await post('/v1/search', { query: 'refund' });
        expect(search).toMatchObject({ status: 200, body: { degraded: true, degradedParts: ['vector'], warnings: [expect.stringMatching(/embedder failed/)] } });
        const context = await post('/v1/context', { question: 'how are refunds issued', maxTokens: 800 });
        expect(context).toMatchObject({ status: 200, body: { degraded: true, degradedParts: ['vector'] } });
        const remembered = await post('/v1/memory/records', { namespace: 'http-outage', text: 'Chargebacks are reviewed by finance.' });
        expect(remembered).toMatchObject({ status: 201, body: { record: { warnings: [expect.stringMatching(/Stored without a vector/)] } } });
        stored = remembered.body.record.id;
        const recalled = await post('/v1/memory/recall', { query: 'chargebacks finance', namespaces: ['http-outage'] });
        expect(recalled).toMatchObject({ status: 200, body: { degraded: true, degradedParts: ['vector'], results: [{ id: stored }] } });
      });
      // Back: recalls find it again within a probe interval (never waiting on it meanwhile); the
      // first recall that reaches the embedder embeds what waits; the next one finds it by vector too.
      let first = await post('/v1/memory/recall', { query: 'chargebacks finance', namespaces: ['http-outage'] });
      for (let tries = 0; tries < 60 && first.body.degraded; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        first = await post('/v1/memory/recall', { query: 'chargebacks finance', namespaces: ['http-outage'] });
      }
      expect(first.body).toMatchObject({ degraded: false, results: [{ id: stored }] });
      expect(first.body.results[0].signals.vector).toBeUndefined();
      const next = await post('/v1/memory/recall', { query: 'chargebacks finance', namespaces: ['http-outage'] });
      expect(next.body.results[0]).toMatchObject({ id: stored, signals: { vector: expect.any(Number) } });
    } finally {
      served.kill('SIGTERM');
    }
  });
});

describe('chat and rerank providers', () => {
  it('`loci ask` reads a plain JSON reply to stream:true, and never stores an empty answer as success', async () => {
    chat.answer = () => 'Invoices are rendered by renderInvoiceTotal [1].';
    chat.faults.push('ignore-stream');
    const plain = await loci(['ask', 'who', 'renders', 'invoices', '--conversation', 'c-json'], chatEnv());
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^Invoices are rendered by renderInvoiceTotal \[1\]\.\n\nSources cited:\n\[1\] /);
    expect(chat.requests.at(-1)?.body.stream).toBe(true);

    chat.faults.push('empty-answer');
    const empty = await loci(['ask', 'say', 'nothing', '--conversation', 'c-empty'], chatEnv());
    expect(empty.code).toBe(5);
    expect(empty.stderr).toMatch(/returned an empty answer/);
    const turns = json(await loci(['memory', 'list', '--kind', 'turn', '--json'])).records;
    expect(turns.filter((turn: { fields: { conversationId: string } }) => turn.fields.conversationId === 'c-empty')).toEqual([]);
    const failed = json(await loci(['memory', 'search', 'say', 'nothing', '--namespace', 'loci/ask', '--outcome', 'error', '--json'])).results;
    expect(failed[0].fields).toMatchObject({ prompt: 'say nothing', outcome: 'error' });
    chat.faults.push('ignore-stream', 'empty-answer');
    expect((await loci(['ask', 'say', 'nothing', 'again', '--conversation', 'c-empty'], chatEnv())).code).toBe(0); // the JSON reply had text
    expect((await loci(['ask', 'say', 'nothing', 'again', '--conversation', 'c-empty'], chatEnv())).code).toBe(5); // this one had none
  });

  it('a reranker that is down keeps the retrieval order with a warning (exit 0)', async () => {
    const question = ['context', 'how', 'are', 'invoices', 'rendered', '--no-small-project', '--top-k', '4', '--json'];
    const plain = json(await loci(question));
    const reranker = new FakeChatServer();
    await reranker.start();
    const rerankEnv = { LOCI_RERANK_BASE_URL: reranker.baseUrl };
    expect(json(await loci([...question, '--rerank', 'cohere'], rerankEnv)).degraded).toBe(false);
    await reranker.stop(); // killed
    const run = await loci([...question, '--rerank', 'cohere'], rerankEnv);
    expect(run.code).toBe(0);
    expect(json(run)).toMatchObject({
      degraded: true,
      degradedParts: ['reranker'],
      warnings: [expect.stringMatching(/reranker cohere:rerank-v3\.5 failed, so the retrieval order was kept: Cannot reach/)],
    });
    expect(json(run).sources).toEqual(plain.sources);
  });
});

describe('a first index that fails', () => {
  it('leaves a status that names the embedder asked for and why it failed, not "embedder: none"', async () => {
    const fresh = join(workspace, 'fresh');
    await mkdir(fresh);
    await writeFile(join(fresh, 'a.ts'), 'export const answer = 42;\n');
    const closed = new FakeEmbeddingServer(16);
    await closed.start();
    const deadUrl = `${closed.baseUrl}/v1`;
    await closed.stop();
    const env = { LOCI_EMBEDDER: 'ollama:my-custom-embedder', LOCI_EMBEDDER_OPTIONS_BASE_URL: deadUrl };
    const failed = await runLoci(['index', fresh], { cwd: workspace, env });
    expect(failed.code).toBe(5);
    const status = await runLoci(['status', '--root', fresh], { cwd: workspace, env });
    expect(status.code).toBe(0);
    expect(status.stdout).not.toMatch(/embedder: none/);
    expect(status.stdout).toMatch(/embedder: ollama:my-custom-embedder \(requested; not set up yet/);
    expect(status.stdout).toMatch(/failed: .*EMBEDDER_FAILED: Cannot reach ollama:my-custom-embedder/);
    expect(json(await runLoci(['status', '--root', fresh, '--json'], { cwd: workspace, env }))).toMatchObject({
      embedder: 'none',
      requestedEmbedder: 'ollama:my-custom-embedder',
      lastFailure: { code: 'EMBEDDER_FAILED' },
    });
  });
});
