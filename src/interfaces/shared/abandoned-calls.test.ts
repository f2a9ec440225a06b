import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/load.js';
import type { SearchOptions } from '../../retrieve/search-types.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { Roots } from './roots.js';
import { createHttpApp } from '../http/http-app.js';

// Search as you type replaces each request with the next: a request whose caller hung up (or an
// MCP call the client cancelled) must stop its work on the server, not queue before the one the
// caller waits for.
describe('a request the caller abandons', () => {
  let workspace: string;
  let roots: Roots;
  let server: ReturnType<typeof serve>;
  let base: string;
  const seen: AbortSignal[] = [];
  let entered: () => void = () => undefined;

  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'loci-abandon-'));
    await writeFile(join(workspace, 'notes.md'), '# Deploys\n\nDeploys go out on Tuesdays.\n');
    roots = new Roots([workspace], () => resolveConfig([]), {});
    const loci = roots.get().loci;
    await loci.index();
    const search = loci.search.bind(loci);
    // The real search, after waiting (bounded) for the caller to go when the query says so.
    loci.search = async (query: string, options: SearchOptions = {}) => {
      if (options.signal) seen.push(options.signal);
      if (query === 'slow') {
        entered();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          options.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return search(query, options);
    };
    const app = createHttpApp({ roots, consoleDir: false });
    server = await new Promise((resolve) => {
      const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await roots?.close();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  const post = (query: string, signal?: AbortSignal) =>
    fetch(`${base}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }), ...(signal ? { signal } : {}) });

  it('aborts the search when the caller hangs up, and only then', async () => {
    const answered = await post('deploys tuesdays');
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    expect(seen.at(-1)?.aborted).toBe(false);

    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    seen.length = 0;
    const caller = new AbortController();
    const request = post('slow', caller.signal).catch((error: unknown) => error);
    await inside;
    expect(seen, 'the search is given the request’s signal').toHaveLength(1);
    const signal = seen[0] as AbortSignal;
    expect(signal.aborted).toBe(false);
    caller.abort();
    expect(((await request) as Error).name).toBe('AbortError');
    // The server sees the connection close (bounded: 5 s).
    await expect.poll(() => signal.aborted, { timeout: 5_000, interval: 20 }).toBe(true);
  });

  it('aborts an MCP search the client cancels', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = createMcpServer(roots);
    await mcp.connect(serverSide);
    const client = new Client({ name: 'abandon-test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      seen.length = 0;
      const caller = new AbortController();
      const call = client.callTool({ name: 'search_code', arguments: { query: 'slow' } }, undefined, { signal: caller.signal }).catch((error: unknown) => error);
      await inside;
      expect(seen, 'the search is given the call’s signal').toHaveLength(1);
      const signal = seen[0] as AbortSignal;
      expect(signal.aborted).toBe(false);
      caller.abort();
      expect(await call).toBeInstanceOf(Error);
      await expect.poll(() => signal.aborted, { timeout: 5_000, interval: 20 }).toBe(true);
    } finally {
      await client.close();
      await mcp.close();
    }
  });
});
