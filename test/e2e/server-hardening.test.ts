import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runLoci } from '../support/run-cli.js';
import { writeSampleRepo } from '../support/sample-repo.js';
import { stopServer } from '../support/serve.js';

// The attacks of issue #19 against the default server (loopback, no token): a web page
// (DNS rebinding, cross-site simple requests), hostile callers (huge or deep bodies) and
// operator mistakes (short token, busy port).

let workspace: string;
let repo: string;
let server: ChildProcess;
let port: number;

interface Started {
  child: ChildProcess;
  port?: number;
  code?: number | null;
  stderr: string;
}

/** Starts `loci serve …` and waits (bounded) until it listens or exits. */
function startServe(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--root', repo, ...args], { cwd: workspace, env: { PATH: process.env.PATH ?? '', HOME: workspace } });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`serve neither listened nor exited: ${stderr}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]), stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ child, code, stderr });
    });
  });
}

interface RawResponse {
  status: number;
  body: string;
  allow?: string | undefined;
}

/** node:http, because fetch will not send a Host header of our choosing. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString(), allow: response.headers.allow }));
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve({ status: 0, body: error.code }) : reject(error)));
    if (body !== undefined) outgoing.end(body);
    else outgoing.end();
  });
}
/** How many memory records a namespace holds (a namespace never written has none). */
async function recordsIn(namespace: string): Promise<number> {
  const response = await raw('GET', `/v1/memory/records?namespace=${encodeURIComponent(namespace)}`);
  return response.status === 200 ? (JSON.parse(response.body) as { records: unknown[] }).records.length : 0;
}
const json = { 'content-type': 'application/json' };
const mcpHeaders = { ...json, accept: 'application/json, text/event-stream' };
const distinctWords = (bytes: number) => {
  const words: string[] = [];
  for (let index = 0, length = 0; length < bytes; index++) {
    const word = `term${index.toString(36)}x`;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
};

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-hardening-'));
  repo = join(workspace, 'repo');
  await mkdir(repo);
  await writeSampleRepo(repo);
  expect((await runLoci(['index', repo], { cwd: workspace })).code).toBe(0);
  const started = await startServe(['--port', '0']);
  expect(started.port, started.stderr).toBeDefined();
  server = started.child;
  port = started.port as number;
});

afterAll(async () => {
  await stopServer(server);
  await rm(workspace, { recursive: true, force: true });
});

describe('web pages cannot use the default server', () => {
  it('refuses a spoofed Host header (DNS rebinding) with 403, on the API, /health and /mcp', async () => {
    for (const path of ['/v1/index', '/health', '/openapi.json']) {
      const response = await raw('GET', path, { host: `attacker.example:${port}` });
      expect(response.status, path).toBe(403);
      expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN_HOST');
    }
    const mcp = await raw('POST', '/mcp', { ...mcpHeaders, host: `attacker.example:${port}` }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(mcp.status).toBe(403);
    expect(mcp.body).not.toMatch(/search_code/);
    // The loopback names still work.
    expect((await raw('GET', '/v1/index', { host: `localhost:${port}` })).status).toBe(200);
    expect((await raw('GET', '/v1/index')).status).toBe(200);
  });

  it('refuses a foreign Origin on writes and reads with 403, and accepts its own', async () => {
    const write = await raw('POST', '/v1/memory/records', { ...json, origin: 'http://attacker.example' }, JSON.stringify({ namespace: 'web/evil', text: 'planted by a web page' }));
    expect(write.status).toBe(403);
    expect(JSON.parse(write.body).error.code).toBe('FORBIDDEN_ORIGIN');
    expect((await raw('POST', '/v1/index', { ...json, origin: 'null' }, '{}')).status).toBe(403);
    expect((await raw('GET', '/v1/index', { origin: `http://localhost:${port + 1}` })).status).toBe(403);
    expect((await raw('POST', '/v1/search', { ...json, origin: `http://127.0.0.1:${port}` }, JSON.stringify({ query: 'refund' }))).status).toBe(200);
    expect(await recordsIn('web/evil')).toBe(0);
  });

  it('answers a text/plain (or form) body with 415 and writes nothing', async () => {
    const plain = await raw('POST', '/v1/memory/records', { 'content-type': 'text/plain' }, JSON.stringify({ namespace: 'web/csrf', text: 'planted' }));
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await raw('POST', '/v1/index', { 'content-type': 'application/x-www-form-urlencoded' }, 'root=repo')).status).toBe(415);
    expect((await raw('POST', '/v1/index')).status).toBe(415);
    expect(await recordsIn('web/csrf')).toBe(0);
    expect(JSON.parse((await raw('GET', '/v1/index')).body).indexing.running).toBe(false);
  });
});

describe('hostile requests get an error, never a crash or a stall', () => {
  it('answers JSON nested 10,000 deep with 400 (HTTP and MCP)', async () => {
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const http = await raw('POST', '/v1/memory/records', json, `{"namespace":"n","text":"x","metadata":${deep}}`);
    expect(http.status).toBe(400);
    expect(JSON.parse(http.body).error.message).toMatch(/deeper than 64/);
    const mcp = await raw('POST', '/mcp', mcpHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"namespace":"n","text":"x","metadata":${deep}}}}`);
    expect(mcp.status).toBe(400);
  });

  it('refuses a 1 MB query of distinct terms fast (413 by body size; the engine refuses what passes)', async () => {
    const huge = distinctWords(1_000_000);
    const started = Date.now();
    // Refused by size: a 413, or (a busy machine) the connection cut while the client still sends.
    const http = await raw('POST', '/v1/search', json, JSON.stringify({ query: huge }));
    expect([0, 413]).toContain(http.status);
    if (http.status === 0) expect(http.body).toMatch(/EPIPE|ECONNRESET/);
    const under = await raw('POST', '/v1/search', json, JSON.stringify({ query: distinctWords(60_000) }));
    expect(under.status).toBe(400);
    expect(JSON.parse(under.body).error.message).toMatch(/limit is 16384/);
    expect([0, 413]).toContain(
      (await raw('POST', '/mcp', mcpHeaders, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_code', arguments: { query: huge } } }))).status,
    );
    const mcp = await raw('POST', '/mcp', mcpHeaders, JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'search_code', arguments: { query: distinctWords(400_000) } } }));
    expect(mcp.status).toBe(200);
    expect(JSON.parse(mcp.body).result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/limit is 16384/) }] });
    const terms = await raw('POST', '/v1/memory/recall', json, JSON.stringify({ query: distinctWords(12_000) }));
    expect(terms.status).toBe(400);
    expect(JSON.parse(terms.body).error.message).toMatch(/distinct search terms \(words and the parts of identifiers\); the limit is 512/);
    expect(Date.now() - started).toBeLessThan(10_000); // was 6 s for one such query
  });

  it('answers a 50 MB MCP message over HTTP with 413 and keeps serving', async () => {
    const text = 'a'.repeat(50 * 1024 * 1024);
    const response = await raw('POST', '/mcp', mcpHeaders, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"namespace":"n","text":"${text}"}}}`);
    expect([0, 413]).toContain(response.status); // the server may cut the upload short
    expect((await raw('GET', '/health')).status).toBe(200);
  });

  it('keeps /health answering while 20 hostile requests are in flight', async () => {
    // Bodies encoded once up front, so the test's own work stays out of the measurement.
    const huge = distinctWords(1_000_000);
    const attacks: Array<[string, Record<string, string>, Buffer]> = [
      ['/v1/search', json, Buffer.from(JSON.stringify({ query: huge }))],
      ['/mcp', mcpHeaders, Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_code', arguments: { query: huge } } }))],
      ['/v1/memory/records', json, Buffer.from(`{"namespace":"n","text":"x","metadata":${'['.repeat(200_000)}${']'.repeat(200_000)}}`)],
      ['/v1/search', json, Buffer.from(JSON.stringify({ query: distinctWords(16_000) }))],
    ];
    const hostile = Array.from({ length: 20 }, (_, index) => {
      const [path, headers, body] = attacks[index % attacks.length] as [string, Record<string, string>, Buffer];
      return raw('POST', path, headers, body);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    const health = await raw('GET', '/health');
    const elapsed = performance.now() - started;
    expect(health.status).toBe(200);
    const answers = await Promise.all(hostile);
    for (const answer of answers) expect([0, 200, 400, 413]).toContain(answer.status);
    console.log(`/health under 20 hostile requests: ${elapsed.toFixed(1)} ms`);
    expect(elapsed).toBeLessThan(1000);
  });

  it('answers a route asked with the wrong method with 405 and the methods it takes, an unknown route with 404', async () => {
    const wrong = await raw('GET', '/v1/search');
    expect(wrong.status).toBe(405);
    expect(wrong.allow).toBe('POST');
    expect(JSON.parse(wrong.body).error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', message: '/v1/search does not take GET; it takes POST.' });
    expect((await raw('DELETE', '/v1/file?path=a.ts')).allow).toBe('GET');
    const unknown = await raw('GET', '/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('NOT_FOUND');
  });

  it('refuses an absolute file path with a message that says paths are relative to the root', async () => {
    for (const path of ['/etc/passwd', `${repo}/README.md`, 'C:\\Windows\\win.ini']) {
      const answer = await raw('GET', `/v1/file?path=${encodeURIComponent(path)}`);
      expect(answer.status).toBe(400);
      const { error } = JSON.parse(answer.body);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/relative to the indexed root, not absolute/);
      // The hint names the parameter as it is sent (error text shortens anything shaped like an absolute path).
      expect(error.hint).toContain('path=src/a.ts');
      expect(answer.body).not.toContain('passwd');
    }
  });

  it('never puts an absolute path of this machine in an error (HTTP and MCP)', async () => {
    const bodies = [
      (await raw('POST', '/v1/context', json, JSON.stringify({ question: 'x', include: ['missing.ts'] }))).body,
      (await raw('POST', '/v1/context', json, JSON.stringify({ question: 'read @missing.ts please' }))).body,
      (await raw('POST', '/mcp', mcpHeaders, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_context', arguments: { question: 'read @missing.ts please' } } })))
        .body,
    ];
    for (const body of bodies) {
      expect(body).toMatch(/missing\.ts/);
      expect(body).not.toContain(workspace);
      expect(body).not.toContain(tmpdir());
    }
  });
});

describe('MCP over stdio', () => {
  it('answers a 50 MB message with an error and keeps serving', async () => {
    const client = new Client({ name: 'loci-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp', '--root', repo], env: { PATH: process.env.PATH ?? '', HOME: workspace }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
    try {
      await expect(client.callTool({ name: 'remember', arguments: { namespace: 'n', text: 'a'.repeat(50 * 1024 * 1024) } }, undefined, { timeout: 60_000 })).rejects.toThrow(/limit is 4194304/);
      const after = await client.callTool({ name: 'search_code', arguments: { query: 'refund' } });
      expect(after.isError).toBeFalsy();
      const missing = await client.callTool({ name: 'get_context', arguments: { question: 'read @missing.ts please' } });
      expect(JSON.stringify(missing.content)).not.toContain(workspace);
      expect(stderr).toMatch(/dropped a message/);
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('operator mistakes are one-line user errors', () => {
  it('refuses a 1-character token with exit 2', async () => {
    const started = await startServe(['--port', '0', '--token', 'a']);
    started.child.kill('SIGTERM');
    expect(started.port).toBeUndefined();
    expect(started.code).toBe(2);
    expect(started.stderr).toMatch(/at least 16/);
  });

  it('reports a busy port in one line with exit 2, no stack trace', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const taken = (busy.address() as { port: number }).port;
    try {
      const started = await startServe(['--port', String(taken)]);
      started.child.kill('SIGTERM');
      expect(started.code).toBe(2);
      expect(started.stderr.trim().split('\n')).toHaveLength(1);
      expect(started.stderr).toMatch(new RegExp(`Port ${taken} on 127\\.0\\.0\\.1 is already in use`));
      expect(started.stderr).not.toMatch(/\n\s+at |bug in loci/);
    } finally {
      busy.close();
    }
  });
});

describe('callers cannot reach past their namespace by query string', () => {
  const add = async (namespace: string, text: string) => JSON.parse((await raw('POST', '/v1/memory/records', json, JSON.stringify({ namespace, text }))).body).record as { id: string };

  it('PATCH honours ?namespace= as GET and DELETE do: another namespace is 404 and the record is untouched', async () => {
    const record = await add('qs-alice', 'the vault code is 4242');
    const hijack = await raw('PATCH', `/v1/memory/records/${record.id}?namespace=qs-bob`, json, JSON.stringify({ text: 'hijacked' }));
    expect(hijack.status).toBe(404);
    const kept = JSON.parse((await raw('GET', `/v1/memory/records/${record.id}?namespace=qs-alice`)).body).record;
    expect(kept.text).toBe('the vault code is 4242');
    const clash = await raw('PATCH', `/v1/memory/records/${record.id}?namespace=qs-alice`, json, JSON.stringify({ namespace: 'qs-bob', text: 'x' }));
    expect(clash.status).toBe(400);
    const own = await raw('PATCH', `/v1/memory/records/${record.id}?namespace=qs-alice`, json, JSON.stringify({ text: 'the vault code is 5353' }));
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body).record.text).toBe('the vault code is 5353');
  });

  it('GET finds a record in a namespace under the one named, as DELETE forgets it', async () => {
    const record = await add('qs-carol/session-1', 'prefers tabs');
    expect((await raw('GET', `/v1/memory/records/${record.id}?namespace=qs-carol`)).status).toBe(200);
    expect((await raw('GET', `/v1/memory/records/${record.id}?namespace=qs-dave`)).status).toBe(404);
  });

  it('refuses a query parameter the route does not take (a misspelled filter never widens a listing or export)', async () => {
    await add('qs-erin', 'a private note');
    for (const path of ['/v1/memory/records?namespaces=qs-bob', '/v1/memory/export?namespaces=qs-bob', '/v1/index/details?changes=0&bogus=1']) {
      const response = await raw('GET', path);
      expect(response.status, path).toBe(400);
      const error = JSON.parse(response.body).error;
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/^GET \/v1\/(memory|index)\/[a-z/]+ takes no query parameter "(namespaces|bogus)"/);
      expect(response.body).not.toContain('a private note');
    }
    const scoped = await raw('GET', '/v1/memory/records?namespace=qs-erin');
    expect(scoped.status).toBe(200);
    expect(JSON.parse(scoped.body).records).toHaveLength(1);
    const posted = await raw('POST', '/v1/memory/recall?namespaces=qs-bob', json, JSON.stringify({ query: 'private note' }));
    expect(posted.status).toBe(400);
    expect(JSON.parse(posted.body).error.hint).toMatch(/JSON body/);
  });

  it('answers GET /mcp with 405 (stateless: no stream to open), so clients do not poll it', async () => {
    const response = await raw('GET', '/mcp', { accept: 'text/event-stream' });
    expect(response.status).toBe(405);
    expect(response.allow).toBe('POST');
  });
});

describe('loci mcp ends on the first signal', () => {
  it('answers every request a client piped in before closing its end, then exits', async () => {
    const child = spawn(process.execPath, [cliPath, 'mcp', '--root', repo], { cwd: workspace, env: { PATH: process.env.PATH ?? '', HOME: workspace }, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let output = '';
      child.stdout?.on('data', (data: Buffer) => {
        output += data.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const messages = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'retry failed requests' } } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'index_status', arguments: {} } },
      ];
      // All at once, then the end of input: as `printf … | loci mcp` does.
      child.stdin?.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
      const outcome = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000))]);
      expect(outcome).toBe(0);
      const answered = output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id?: number; result?: unknown });
      expect(answered.map((message) => message.id).sort()).toEqual([1, 2, 3]);
      expect(answered.every((message) => message.result !== undefined)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('exits on SIGTERM while its client still holds stdin open', async () => {
    const child = spawn(process.execPath, [cliPath, 'mcp', '--root', repo], { cwd: workspace, env: { PATH: process.env.PATH ?? '', HOME: workspace }, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      // Ready once it answers a request.
      const answered = new Promise<void>((resolve) => child.stdout?.on('data', () => resolve()));
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
      await answered;
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const outcome = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000))]);
      expect(outcome).not.toBe('hung');
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
