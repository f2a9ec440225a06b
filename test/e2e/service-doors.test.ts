import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci } from '../../src/engine/create-loci.js';
import { runLoci } from '../support/run-cli.js';
import { writeSampleRepo } from '../support/sample-repo.js';
import { startServer, stopServer } from '../support/serve.js';

// #21: the one record model on every door (library, CLI, HTTP, MCP), conversations,
// knowledge stores and exports, against a real `loci serve` and the built CLI.
let workspace: string;
let repo: string;
let server: ChildProcess;
let base: string;
const token = 'service-token-123-long-enough';

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-service-'));
  repo = join(workspace, 'repo');
  await mkdir(repo);
  await writeSampleRepo(repo);
  await writeFile(join(repo, 'KNOWLEDGE.md'), '# Deploys\n\nDeploys go out on Tuesdays after the freeze.\n\n# Style\n\nThe team indents with tabs.\n');
  await writeFile(join(repo, '.env'), 'SECRET=hunter2\n');
  expect((await runLoci(['index', repo], { cwd: workspace })).code).toBe(0);
  ({ process: server, base } = await startServer(['--root', repo, '--token', token], { cwd: workspace }));
});

afterAll(async () => {
  await stopServer(server);
  await rm(workspace, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
const post = (path: string, body: unknown) => call(path, { method: 'POST', body: JSON.stringify(body) });
const cli = (args: string[]) => runLoci([...args, '--root', repo], { cwd: workspace });
const cliJson = async (args: string[]) => {
  const run = await cli([...args, '--json']);
  expect(run.stderr === '' || run.code === 0 ? run.code : run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

/** What must read back equal whichever door wrote the record. */
const comparable = (record: { kind: string; namespace: string; text: string; fields?: unknown; metadata?: unknown }) => ({
  kind: record.kind,
  namespace: record.namespace,
  text: record.text,
  fields: record.fields,
  metadata: record.metadata,
});

describe('one record model on every door', () => {
  it('the same interaction written by the CLI, HTTP, MCP and the library reads back equal through every other door', async () => {
    const flat = { prompt: 'spawn three goblins near the gate', response: 'Spawned 3 goblins', outcome: 'error', feedback: 'they spawned inside the wall', multiStep: true };
    const ids: Record<string, string> = {};
    ids.cli = (
      await cliJson([
        'memory',
        'add',
        '--kind',
        'interaction',
        '--namespace',
        'unity/session/cli',
        '--prompt',
        flat.prompt,
        '--response',
        flat.response,
        '--outcome',
        flat.outcome,
        '--feedback',
        flat.feedback,
        '--multi-step',
        '--metadata',
        '{"scene":"gate"}',
      ])
    ).record.id;
    const written = await post('/v1/memory/records', { kind: 'interaction', namespace: 'unity/session/http', ...flat, metadata: { scene: 'gate' } });
    expect(written.status).toBe(201);
    ids.http = (await written.json()).record.id;
    const client = new Client({ name: 'service-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const remembered = await client.callTool({ name: 'remember', arguments: { kind: 'interaction', namespace: 'unity/session/mcp', ...flat, metadata: { scene: 'gate' } } });
      expect(remembered.isError).toBeFalsy();
      ids.mcp = (remembered.structuredContent as { id: string }).id;
    } finally {
      await client.close();
    }
    const library = createLoci({ root: repo, env: {} });
    try {
      ids.library = (await (await library.memory()).addRecord({ kind: 'interaction', namespace: 'unity/session/library', ...flat, metadata: { scene: 'gate' } })).id;
    } finally {
      await library.close();
    }

    for (const [door, id] of Object.entries(ids)) {
      const viaHttp = (await (await call(`/v1/memory/records/${id}`)).json()).record;
      const viaCli = (await cliJson(['memory', 'get', id])).record;
      const expected = {
        kind: 'interaction',
        namespace: `unity/session/${door}`,
        text: flat.prompt,
        fields: { prompt: flat.prompt, response: flat.response, outcome: 'error', feedback: flat.feedback, multiStep: true },
        metadata: { scene: 'gate' },
      };
      expect({ door, record: comparable(viaHttp) }).toEqual({ door, record: expected });
      expect({ door, record: comparable(viaCli) }).toEqual({ door, record: expected });
    }
    // Outcome filters see them all, whichever door wrote them.
    const failures = await post('/v1/memory/recall', { query: 'spawn goblins', namespaces: ['unity'], outcome: 'error', topK: 10 });
    expect((await failures.json()).results.map((hit: { namespace: string }) => hit.namespace).sort()).toEqual([
      'unity/session/cli',
      'unity/session/http',
      'unity/session/library',
      'unity/session/mcp',
    ]);
    const successes = await cliJson(['memory', 'search', 'spawn goblins', '--namespace', 'unity', '--outcome', 'success']);
    expect(successes.results).toEqual([]);
  });

  it('a namespace with no records yet is an empty answer on every door; a malformed one is an error', async () => {
    expect((await (await post('/v1/memory/recall', { query: 'anything', namespaces: ['unity/session/brand-new'] })).json()).results).toEqual([]);
    const run = await cli(['memory', 'search', 'anything', '--namespace', 'unity/session/brand-new', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).results).toEqual([]);
    expect((await post('/v1/memory/recall', { query: 'x', namespaces: ['bad space'] })).status).toBe(400);
  });

  it('an empty query is QUERY_EMPTY on every query route, blank or not', async () => {
    for (const [route, field] of [
      ['/v1/search', 'query'],
      ['/v1/context', 'question'],
      ['/v1/memory/recall', 'query'],
    ] as const) {
      for (const text of ['', '   ']) {
        const reply = await post(route, { [field]: text });
        expect(reply.status, `${route} ${JSON.stringify(text)}`).toBe(400);
        expect((await reply.json()).error.code, `${route} ${JSON.stringify(text)}`).toBe('QUERY_EMPTY');
      }
    }
  });
});

describe('conversations on every door', () => {
  it('turns posted over HTTP come back in history over HTTP and the CLI, and go into /v1/context', async () => {
    for (const [userQuery, assistantResponse] of [
      ['What is the refund window?', 'Thirty days from purchase.'],
      ['And for digital goods?', 'Fourteen days, unless downloaded.'],
    ]) {
      expect((await post('/v1/memory/records', { kind: 'turn', conversationId: 'chat-7', prompt: userQuery, response: assistantResponse })).status).toBe(201);
    }
    const history = await (await call('/v1/memory/conversations/chat-7/history?maxTokens=500&query=refund')).json();
    expect(history.messages).toEqual([
      { role: 'user', content: 'What is the refund window?' },
      { role: 'assistant', content: 'Thirty days from purchase.' },
      { role: 'user', content: 'And for digital goods?' },
      { role: 'assistant', content: 'Fourteen days, unless downloaded.' },
    ]);
    const viaCli = await cliJson(['memory', 'history', 'chat-7', '--max-tokens', '500']);
    expect(viaCli.messages).toEqual(history.messages);
    expect((await (await call('/v1/memory/conversations/never-seen/history')).json()).turns).toEqual([]);
    const context = await (await post('/v1/context', { question: 'how are refunds charged', maxTokens: 2000, conversationId: 'chat-7' })).json();
    expect(context.prompt).toContain('Fourteen days, unless downloaded.');
    expect(context.conversation).toMatchObject({ id: 'chat-7', turns: 2, omitted: 0 });
    expect((await post('/v1/context', { question: 'how are refunds charged', historyTokens: 100 })).status).toBe(400);
    const named = await (await post('/v1/context', { question: 'refunds', maxTokens: 2000, conversationId: 'chat-7', conversationNamespace: 'conversations/chat-7', historyTokens: 500 })).json();
    expect(named.conversation).toMatchObject({ turns: 2 });
    const cliContext = await cli(['context', 'how are refunds charged', '--max-tokens', '2000', '--conversation', 'chat-7']);
    expect(cliContext.stdout).toContain('Fourteen days, unless downloaded.');
  });
});

describe('knowledge stores on every door', () => {
  it('load-or-create from markdown, search at a threshold and top-N, rebuilt when the file changes', async () => {
    const loaded = await cliJson(['knowledge', 'load', 'boss', join(repo, 'KNOWLEDGE.md')]);
    expect(loaded).toMatchObject({ agent: 'boss', sections: 2, rebuilt: true });
    expect(await cliJson(['knowledge', 'load', 'boss', join(repo, 'KNOWLEDGE.md')])).toMatchObject({ rebuilt: false });
    const found = await cliJson(['knowledge', 'search', 'boss', 'when do deploys go out', '--threshold', '0', '--top-k', '1']);
    expect(found.results).toHaveLength(1);
    expect(found.results[0].text).toContain('Tuesdays');
    const cosine = await cliJson(['knowledge', 'search', 'boss', 'when do deploys go out', '--threshold', '0', '--mode', 'cosine']);
    const scores = cosine.results.map((hit: { score: number }) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    await writeFile(join(repo, 'KNOWLEDGE.md'), '# Deploys\n\nDeploys go out on Thursdays now.\n');
    const after = await (await post('/v1/knowledge/boss/search', { query: 'when do deploys go out', threshold: 0 })).json();
    expect(after.rebuilt).toBe(true);
    expect(JSON.stringify(after.results)).toContain('Thursdays');
    expect((await cliJson(['knowledge', 'list'])).stores.map((store: { agent: string }) => store.agent)).toContain('boss');
  });

  it('over HTTP a file is named inside the served root and read by its rules: never outside it, never a secrets file', async () => {
    const inside = await post('/v1/knowledge/npc/load', { path: 'KNOWLEDGE.md' });
    expect(inside.status).toBe(200);
    expect((await inside.json()).source).toBe('KNOWLEDGE.md');
    for (const path of ['../../../../etc/passwd', join(workspace, 'outside.md'), '.env']) {
      const refused = await post('/v1/knowledge/npc/load', { path });
      expect({ path, status: refused.status }).toEqual({ path, status: 400 });
      expect(JSON.stringify(await refused.json())).not.toContain('hunter2');
    }
    expect((await call('/v1/knowledge/npc', { method: 'DELETE' })).status).toBe(200);
    expect((await post('/v1/knowledge/npc/search', { query: 'x' })).status).toBe(404);
  });
});

describe('round trips', () => {
  it('an export in each format imports back to the same records', async () => {
    for (const format of ['loci', 'unity', 'go-agent']) {
      const file = join(workspace, `export-${format}.json`);
      const namespace = format === 'go-agent' ? 'agents/boss/knowledge' : 'unity';
      const exported = await cli(['memory', 'export', '--format', format, '--namespace', namespace, '--out', file]);
      expect({ format, code: exported.code, stderr: exported.stderr }).toMatchObject({ format, code: 0 });
      const before = (await cliJson(['memory', 'list', '--namespace', namespace])).records.map(comparable);
      const fresh = join(workspace, `fresh-${format}`);
      await mkdir(fresh);
      const imported = await runLoci(['memory', 'import', file, '--root', fresh, ...(format === 'loci' ? [] : ['--namespace', namespace])], { cwd: workspace });
      expect({ format, code: imported.code, stderr: imported.stderr }).toMatchObject({ format, code: 0 });
      const after = JSON.parse((await runLoci(['memory', 'list', '--namespace', namespace, '--root', fresh, '--json'], { cwd: workspace })).stdout).records.map(comparable);
      const order = (records: Array<{ text: string }>) => [...records].sort((a, b) => a.text.localeCompare(b.text));
      expect({ format, records: order(after) }).toEqual({ format, records: order(before) });
      expect(JSON.parse(await readFile(file, 'utf8'))).toBeTruthy();
    }
  });
});

describe('agent setup in one step', () => {
  it('loci mcp --print-config prints the exact entry for each client', async () => {
    for (const client of ['claude', 'cursor', 'vscode']) {
      const run = await runLoci(['mcp', '--print-config', client, '--root', repo], { cwd: workspace });
      expect(run.code).toBe(0);
      const entry = JSON.parse(run.stdout);
      const server = client === 'vscode' ? entry.servers.loci : entry.mcpServers.loci;
      expect(server.command).toBe(process.execPath);
      expect(server.args.slice(-3)).toEqual(['mcp', '--root', repo]);
    }
    const yaml = await runLoci(['mcp', '--print-config', 'continue', '--root', repo], { cwd: workspace });
    expect(yaml.stdout).toMatch(/mcpServers:\n {2}- name: loci\n {4}command: /);
    expect((await runLoci(['mcp', '--print-config', 'emacs'], { cwd: workspace })).code).toBe(2);
  });
});
