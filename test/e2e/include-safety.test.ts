import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markers, writeHostileTree, type HostileTree } from '../../src/sources/test-support/hostile-tree.js';
import { cliPath, runLoci } from '../support/run-cli.js';
import { startServer, stopServer } from '../support/serve.js';

// Every door that takes an include (CLI @path, HTTP include, MCP get_context) against a folder
// built as an attacker would; and what indexing keeps out of search by default.
let tree: HostileTree;
let server: ChildProcess;
let base: string;
const token = 'include-safety-token-0123456789';
const secretMarkers = Object.entries(markers).filter(([name]) => name !== 'envExample');

beforeAll(async () => {
  tree = await writeHostileTree(await mkdtemp(join(tmpdir(), 'loci-e2e-include-')));
  const indexed = await runLoci(['index', tree.repo, '--embedder', 'none', '--json'], { cwd: tree.workspace });
  expect(indexed.code, indexed.stderr).toBe(0);
  ({ process: server, base } = await startServer(['--root', tree.repo, '--token', token], { cwd: tree.workspace }));
});

afterAll(async () => {
  await stopServer(server);
  await rm(tree.workspace, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(20_000) });

function expectNoSecret(text: string) {
  for (const [name, marker] of secretMarkers) expect(text, name).not.toContain(marker);
  expect(text).not.toContain(tree.workspace); // no absolute paths either
}

describe('CLI loci context', () => {
  it('refuses @links out of the root, secrets, .git and the store, with exit code 2', async () => {
    const outside = /outside the project folder/;
    const excluded = /secrets file|folder loci never reads/;
    const cases: Array<[string, RegExp]> = [
      ['shadow-link.txt', outside],
      ['environ-link.txt', outside],
      ['.env', excluded],
      ['.git/config', excluded],
      ['pipe.txt', /not a regular file/],
    ];
    for (const [path, message] of cases) {
      // `@.env` is not read as a mention (no name before the dot), so --include names it.
      const asked = path.startsWith('.') ? ['explain it', '--include', path] : [`explain @${path}`];
      const run = await runLoci(['context', ...asked, '--root', tree.repo, '--json'], { cwd: tree.workspace });
      expect(run.code, `${path}: ${run.stderr}`).toBe(2);
      expect(run.stderr, path).toMatch(message);
      expectNoSecret(run.stdout + run.stderr);
    }
  }, 120_000);
});

describe('HTTP /v1/context', () => {
  it('refuses includes that lead out of the root or to secrets', async () => {
    for (const [include, code] of [
      ['shadow-link.txt', 'PATH_OUTSIDE_ROOT'],
      ['environ-link.txt', 'PATH_OUTSIDE_ROOT'],
      ['zero-link.txt', 'PATH_OUTSIDE_ROOT'],
      ['.env', 'PATH_EXCLUDED'],
      ['dotenv-link.txt', 'PATH_EXCLUDED'],
      ['.aws/credentials', 'PATH_EXCLUDED'],
      ['.git/config', 'PATH_EXCLUDED'],
      ['.loci/index.db', 'PATH_EXCLUDED'],
      ['big.txt', 'FILE_TOO_LARGE'],
      ['pipe.txt', 'NOT_A_REGULAR_FILE'],
    ]) {
      const response = await post('/v1/context', { question: 'read it', include: [include] });
      const text = await response.text();
      expect(response.status, `${include}: ${text}`).toBe(400);
      expect(JSON.parse(text).error.code, include).toBe(code);
      expectNoSecret(text);
    }
    // The FIFO did not stall the server.
    expect((await fetch(`${base}/health`, { signal: AbortSignal.timeout(20_000) })).status).toBe(200);
  });

  it('sends no secret in a whole-project context', async () => {
    const response = await post('/v1/context', { question: 'what does this project do', maxTokens: 100_000 });
    expect(response.status).toBe(200);
    const text = await response.text();
    expectNoSecret(text);
    expect(text).toContain('src/refund.ts');
  });
});

describe('MCP get_context', () => {
  it('answers @links out of the root and @secrets with an error, not the file', async () => {
    const client = new Client({ name: 'loci-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp', '--root', tree.repo], env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' }));
    try {
      for (const [path, code] of [
        ['shadow-link.txt', 'PATH_OUTSIDE_ROOT'],
        ['environ-link.txt', 'PATH_OUTSIDE_ROOT'],
        ['keys/id_rsa', 'PATH_EXCLUDED'],
        ['pipe.txt', 'NOT_A_REGULAR_FILE'],
      ]) {
        const result = await client.callTool({ name: 'get_context', arguments: { question: `explain @${path}` } });
        const text = JSON.stringify(result);
        expect(result.isError, path).toBe(true);
        expect(text, path).toContain(code);
        expectNoSecret(text);
      }
    } finally {
      await client.close();
    }
  });
});

describe('indexing secrets', () => {
  async function search(query: string, store?: string) {
    const run = await runLoci(['search', query, '--root', tree.repo, '--json', ...(store ? ['--store', store] : [])], { cwd: tree.workspace });
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout).results as Array<{ path: string; text: string }>;
  }

  it('keeps secrets files and files holding keys out of the index, and status counts them', async () => {
    // One query naming every marker: the example file answers, no secret does.
    const results = await search([...secretMarkers.map(([, marker]) => marker), markers.envExample].join(' '));
    expect(results.map((result) => result.path)).toContain('.env.example');
    for (const result of results) expectNoSecret(result.text);
    const status = JSON.parse((await runLoci(['status', '--root', tree.repo, '--json'], { cwd: tree.workspace })).stdout);
    // .env, .envrc-free tree: .env, keys/id_rsa, .aws/credentials, .npmrc, secrets.yaml, .docker/config.json, certs/server.pem, dotenv-link.txt
    expect(status.lastRun.skipped.secret).toBe(8);
    // config/settings.py (AWS key) and docs/tokens.md (Stripe key)
    expect(status.lastRun.skipped['secret-content']).toBe(2);
    const text = (await runLoci(['status', '--root', tree.repo], { cwd: tree.workspace })).stdout;
    expect(text).toMatch(/skipped: .*8 secret, 2 secret-content/);
  });

  it('indexes them with loci index --include-secrets', async () => {
    const store = join(tree.workspace, 'with-secrets');
    const indexed = await runLoci(['index', tree.repo, '--embedder', 'none', '--store', store, '--include-secrets', '--json'], { cwd: tree.workspace });
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(JSON.parse(indexed.stdout).skipped).toMatchObject({ secret: 0, 'secret-content': 0 });
    const results = await search([markers.env, markers.settings, markers.idRsa].join(' '), store);
    for (const marker of [markers.env, markers.settings, markers.idRsa])
      expect(
        results.some((result) => result.text.includes(marker)),
        marker,
      ).toBe(true);
  });
});
