import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runLoci } from '../support/run-cli.js';
import { startServer, stopServer } from '../support/serve.js';
import { writeSampleRepo } from '../support/sample-repo.js';

let workspace: string;
let repo: string;
let server: ChildProcess;
let base: string;
const token = 'test-token-123-long-enough';

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-doors-'));
  repo = join(workspace, 'repo');
  await mkdir(repo);
  await writeSampleRepo(repo);
  expect((await runLoci(['index', repo], { cwd: workspace })).code).toBe(0);
  ({ process: server, base } = await startServer(['--root', repo, '--token', token, '--max-body', '4096'], { cwd: workspace }));
});

afterAll(async () => {
  await stopServer(server);
  await rm(workspace, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit = {}, auth = true) =>
  fetch(`${base}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string>) } });
const post = (path: string, body: unknown) => call(path, { method: 'POST', body: JSON.stringify(body) });

describe('HTTP API', () => {
  it('serves health without auth and everything else only with the token', async () => {
    expect(await (await call('/health', {}, false)).json()).toMatchObject({ ok: true, roots: ['repo'] });
    const denied = await call('/v1/search', { method: 'POST', body: '{"query":"refund"}' }, false);
    expect(denied.status).toBe(401);
    expect((await denied.json()).error.code).toBe('UNAUTHORIZED');
    expect((await call('/v1/search', { method: 'POST', body: '{"query":"refund"}', headers: { authorization: 'Bearer wrong-token-123-long-enough' } }, false)).status).toBe(401);
  });

  it('searches, builds context and reports index status', async () => {
    const search = await (await post('/v1/search', { query: 'refund the charge', topK: 3 })).json();
    expect(search.results.length).toBeGreaterThan(0);
    expect(search.results[0]).toMatchObject({ path: expect.any(String), startLine: expect.any(Number), text: expect.any(String) });
    const explained = await (await post('/v1/search', { query: 'refund the charge', topK: 3, explain: true })).json();
    expect(explained.results[0].ranking).toMatchObject({ ranker: 'loci-ranker-v1', features: { coverage: { value: expect.any(Number) } } });
    const context = await (await post('/v1/context', { question: 'how are refunds charged', maxTokens: 600 })).json();
    expect(context.tokens).toBeLessThanOrEqual(600);
    expect(Object.keys(context)).toEqual(['tokens', 'prompt', 'messages', 'sources', 'unit', 'tokenizer', 'mode', 'skipped', 'packing', 'warnings', 'degraded', 'degradedParts']);
    const started = await post('/v1/index', {});
    expect(started.status).toBe(202);
    let status = await (await call('/v1/index')).json();
    for (let attempt = 0; attempt < 100 && status.indexing.running; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await (await call('/v1/index')).json();
    }
    expect(status).toMatchObject({ root: 'repo', indexing: { running: false }, files: expect.any(Number) });
    expect(status.files).toBeGreaterThan(0);
  });

  it('does memory CRUD and recall', async () => {
    const created = await post('/v1/memory/records', { namespace: 'agent/go', text: 'The boss is weak to ice', metadata: { from: 'go' } });
    expect(created.status).toBe(201);
    const { record } = await created.json();
    expect((await (await call(`/v1/memory/records/${record.id}?namespace=agent/go`)).json()).record.text).toBe('The boss is weak to ice');
    const patched = await (await call(`/v1/memory/records/${record.id}`, { method: 'PATCH', body: JSON.stringify({ text: 'The boss is weak to fire' }) })).json();
    expect(patched.record.text).toBe('The boss is weak to fire');
    const recall = await (await post('/v1/memory/recall', { query: 'what is the boss weak to', namespaces: ['agent/go'] })).json();
    expect(recall.results[0]).toMatchObject({ id: record.id, text: 'The boss is weak to fire', score: expect.any(Number) });
    const explained = await (await post('/v1/memory/recall', { query: 'what is the boss weak to', namespaces: ['agent/go'], explain: true })).json();
    expect(explained.results[0].explanation.recency).toMatchObject({ weight: 0.1, raw: expect.any(Number) });
    expect((await (await call('/v1/memory/records?namespace=agent/go')).json()).records).toHaveLength(1);
    expect((await call(`/v1/memory/records/${record.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(`/v1/memory/records/${record.id}`)).status).toBe(404);
    const unknown = await post('/v1/memory/recall', { query: 'x', namespaces: ['agent/nobody'] });
    // A namespace with no records yet (a new session's first recall) is an empty answer.
    expect(unknown.status).toBe(200);
    expect((await unknown.json()).results).toEqual([]);
    const malformed = await post('/v1/memory/recall', { query: 'x', namespaces: ['bad space'] });
    expect(malformed.status).toBe(400);
  });

  it('rejects bad JSON, bad fields, oversized bodies and path escapes with JSON errors', async () => {
    const bad = await call('/v1/search', { method: 'POST', body: '{oops' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/not valid JSON/) });
    const wrong = await post('/v1/search', { query: 'x', topK: 'many' });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error.message).toMatch(/topK/);
    const big = await post('/v1/memory/records', { namespace: 'n', text: 'x'.repeat(10_000) });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', hint: expect.stringMatching(/Send less in one request/) });
    for (const include of ['../../../../etc/passwd', '/etc/passwd']) {
      const refused = await post('/v1/context', { question: 'read it', include: [include] });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error.message).toMatch(/outside the project folder/);
    }
    const mention = await post('/v1/context', { question: 'read @../secret.txt' });
    expect(mention.status).toBe(400);
    expect((await call('/v1/nothing')).status).toBe(404);
    const openapi = await (await call('/openapi.json')).json();
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/v1/search', '/v1/context', '/v1/index', '/v1/memory/records', '/v1/memory/recall']));
  });

  it('refuses a non-loopback address without a token', async () => {
    const run = await runLoci(['serve', '--root', repo, '--host', '0.0.0.0', '--port', '0'], { cwd: workspace });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0 without a token/);
  });
});

describe('client examples in docs/clients', () => {
  const clients = new URL('../../docs/clients/', import.meta.url);
  const routeOf: Record<string, string> = { Search: '/v1/search', Remember: '/v1/memory/records', Recall: '/v1/memory/recall' };

  /** Every key at any depth of a JSON value. */
  const keysOf = (value: unknown, into = new Set<string>()): Set<string> => {
    if (Array.isArray(value)) for (const entry of value) keysOf(entry, into);
    else if (value && typeof value === 'object') for (const [key, entry] of Object.entries(value)) keysOf(entry, into.add(key));
    return into;
  };

  /** Field names per type: `json:"x"` tags in Go structs, JsonPropertyName("x") in C# classes. */
  const fieldsByType = (source: string, typePattern: RegExp, fieldPattern: RegExp) => {
    const out = new Map<string, string[]>();
    const starts = [...source.matchAll(typePattern)];
    starts.forEach((match, index) => {
      const body = source.slice(match.index, starts[index + 1]?.index ?? source.length);
      out.set(
        match[1] as string,
        [...body.matchAll(fieldPattern)].map((field) => field[1] as string),
      );
    });
    return out;
  };

  async function checkAgainstApi(types: Map<string, string[]>) {
    const openapi = await (await call('/openapi.json')).json();
    const samples: Record<string, unknown> = {
      Search: { query: 'refund the charge', topK: 2 },
      Remember: { namespace: 'docs/clients', text: 'client example memory' },
      Recall: { query: 'client example', namespaces: ['docs/clients'] },
    };
    expect((await post('/v1/memory/records', samples.Remember)).status).toBe(201);
    let checked = 0;
    for (const [name, fields] of types) {
      const kind = name.replace(/(Request|Response)$/, '');
      const route = routeOf[kind];
      if (!route || fields.length === 0) continue;
      if (name.endsWith('Request')) {
        const properties = Object.keys(openapi.paths[route].post.requestBody.content['application/json'].schema.properties);
        expect(properties, `${name} fields must exist in the OpenAPI schema of ${route}`).toEqual(expect.arrayContaining(fields));
      } else {
        const reply = await (await post(route, samples[kind])).json();
        expect([...keysOf(reply)], `${name} fields must appear in a real ${route} reply`).toEqual(expect.arrayContaining(fields));
      }
      checked++;
    }
    return checked;
  }

  it('Go structs match the OpenAPI request schemas and real replies', async () => {
    const source = await readFile(new URL('loci.go', clients), 'utf8');
    const types = fieldsByType(source, /^type (\w+) struct/gm, /json:"(\w+)/g);
    expect(await checkAgainstApi(types)).toBeGreaterThanOrEqual(5);
  });

  it('C# classes match the OpenAPI request schemas and real replies', async () => {
    const source = await readFile(new URL('LociClient.cs', clients), 'utf8');
    const types = fieldsByType(source, /^public sealed class (\w+)/gm, /JsonPropertyName\("(\w+)"\)/g);
    types.set('RecallResponse', [...(types.get('RecallResponse') ?? []), ...(types.get('RecallHit') ?? [])]);
    expect(await checkAgainstApi(types)).toBeGreaterThanOrEqual(3);
  });

  it('the curl script runs against the server', async () => {
    const out = execFileSync('bash', [new URL('curl.sh', clients).pathname], { env: { PATH: process.env.PATH ?? '', LOCI_URL: base, LOCI_TOKEN: token }, encoding: 'utf8' });
    expect(out).toMatch(/"results"/);
    expect(out).toMatch(/"tokens"/);
  });
});

describe('MCP', () => {
  async function exercise(client: Client) {
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(tools).toEqual([
      'conversation_history',
      'find_symbol',
      'get_context',
      'index_status',
      'knowledge_drop',
      'knowledge_list',
      'knowledge_load',
      'knowledge_search',
      'recall',
      'remember',
      'search_code',
    ]);
    const search = await client.callTool({ name: 'search_code', arguments: { query: 'refund the charge', topK: 2 } });
    expect(search.isError).toBeFalsy();
    // A value past a bound is reported at that bound alone, not also at the safe-integer one.
    const huge = await client.callTool({ name: 'search_code', arguments: { query: 'refund the charge', topK: 1e20 } }).catch((error: Error) => ({ isError: true, content: error.message }));
    expect(huge.isError).toBe(true);
    expect(JSON.stringify(huge.content)).toMatch(/<=50/);
    expect(JSON.stringify(huge.content)).not.toMatch(/9007199254740991/);
    // A misspelled argument is refused, not ignored: "namespace" for "namespaces" searched every namespace.
    const misspelled = await client
      .callTool({ name: 'recall', arguments: { query: 'indentation preference', namespace: 'user/alice' } })
      .catch((error: Error) => ({ isError: true, content: error.message }));
    expect(misspelled.isError).toBe(true);
    expect(JSON.stringify(misspelled.content)).toMatch(/namespace/);
    expect(JSON.stringify(misspelled.content)).toMatch(/[Uu]nrecognized/);
    // … and the key meant is named, as the HTTP API and the library do.
    expect(JSON.stringify(misspelled.content)).toContain('Unrecognized key: \\"namespace\\"; did you mean \\"namespaces\\"?');
    const unknown = await client.callTool({ name: 'search_code', arguments: { query: 'refund', colour: 'red' } }).catch((error: Error) => ({ isError: true, content: error.message }));
    expect(JSON.stringify(unknown.content)).toMatch(/Unrecognized key: \\"colour\\"; the keys are \\"query\\", \\"topK\\"/);
    expect((search.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const remembered = await client.callTool({ name: 'remember', arguments: { namespace: 'user/alice', text: 'Alice prefers tabs over spaces' } });
    expect(remembered.isError).toBeFalsy();
    const recalled = await client.callTool({ name: 'recall', arguments: { query: 'indentation preference', namespaces: ['user/alice'] } });
    expect(JSON.stringify(recalled.content)).toMatch(/tabs over spaces/);
    const empty = await client.callTool({ name: 'recall', arguments: { query: 'x', namespaces: ['user/nobody'] } });
    expect(empty.isError).toBeFalsy();
    expect((empty.structuredContent as { records: unknown[] }).records).toEqual([]);
    const failed = await client.callTool({ name: 'recall', arguments: { query: 'x', namespaces: ['bad space'] } });
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toMatch(/INVALID_ARGUMENT/);
    const loaded = await client.callTool({
      name: 'knowledge_load',
      arguments: { agent: 'boss', markdown: '# Deploys\n\nDeploys go out on Tuesdays after the freeze.\n\n# Tabs\n\nThe team indents with tabs.\n' },
    });
    expect(loaded.structuredContent).toMatchObject({ agent: 'boss', sections: 2, rebuilt: expect.any(Boolean) });
    const found = await client.callTool({ name: 'knowledge_search', arguments: { agent: 'boss', query: 'when do deploys go out', threshold: 0, topK: 1 } });
    expect(JSON.stringify(found.content)).toMatch(/Tuesdays/);
    const outside = await client.callTool({ name: 'knowledge_load', arguments: { agent: 'boss', path: '../../etc/passwd' } });
    expect(outside.isError).toBe(true);
    const context = await client.callTool({ name: 'get_context', arguments: { question: 'how are refunds charged', maxTokens: 500 } });
    expect((context.structuredContent as { tokens: number }).tokens).toBeLessThanOrEqual(500);
    const status = await client.callTool({ name: 'index_status', arguments: {} });
    expect((status.structuredContent as { files: number }).files).toBeGreaterThan(0);
  }

  it('works over stdio with the official client', async () => {
    const client = new Client({ name: 'loci-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp', '--root', repo], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' }));
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  it('works over streamable HTTP with the official client, behind the token', async () => {
    const client = new Client({ name: 'loci-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
  });
});
