import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci } from '../../src/engine/create-loci.js';
import type { MemoryRecord } from '../../src/memory/spec.js';
import { cliPath, runLoci } from '../support/run-cli.js';
import { startServer, stopServer } from '../support/serve.js';

// Memory integrity through the doors a user or an agent reaches: the built CLI, the HTTP
// API and the MCP server (issue 19, scope 6).
let workspace: string;
let repo: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-memory-integrity-'));
  repo = join(workspace, 'repo');
  await mkdir(repo);
  await writeFile(join(repo, 'readme.md'), '# Tiny\n\nA tiny project for memory tests.\n');
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const run = (args: string[]) => runLoci([...args, '--root', repo], { cwd: workspace });

/** Writes a row as an older loci could (no time check), straight through the record store. */
async function writeRawRecord(record: MemoryRecord): Promise<void> {
  const loci = createLoci({ root: repo });
  try {
    await (await loci.memory()).records.write([record]);
  } finally {
    await loci.close();
  }
}

describe('CLI', () => {
  it('refuses an id that exists in another namespace or again in its own, with exit code 4', async () => {
    expect((await run(['memory', 'add', 'the original text', '--namespace', 'cli/a', '--id', 'cli-fact'])).code).toBe(0);
    for (const namespace of ['cli/b', 'cli/a']) {
      const again = await run(['memory', 'add', 'a different text', '--namespace', namespace, '--id', 'cli-fact']);
      expect(again.code).toBe(4);
      expect(again.stderr).toMatch(/cli-fact already exists \(namespace cli\/a\)/);
      expect(again.stderr).not.toMatch(/\n\s+at /);
    }
    const list = JSON.parse((await run(['memory', 'list', '--json'])).stdout).records.filter((record: MemoryRecord) => record.id === 'cli-fact');
    expect(list).toEqual([expect.objectContaining({ namespace: 'cli/a', text: 'the original text' })]);
  });

  it('keeps the newer contradicting fact and recalls it first; update keeps the old text', async () => {
    expect((await run(['memory', 'add', 'The staging database port is 5432', '--namespace', 'cli/ops', '--time', '2024-01-01'])).code).toBe(0);
    const second = await run(['memory', 'add', 'The staging database port is 6543', '--namespace', 'cli/ops', '--time', '2024-06-01']);
    expect(second.stdout).toMatch(/^added /);
    const search = JSON.parse((await run(['memory', 'search', 'staging database port 5432', '--namespace', 'cli/ops', '--json'])).stdout);
    expect(search.results.map((result: { text: string }) => result.text)).toEqual(['The staging database port is 6543', 'The staging database port is 5432']);

    const id = search.results[0].id as string;
    const updated = await run(['memory', 'update', id, 'The staging database port is 7654']);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toMatch(/1 earlier version kept/);
    const shown = await run(['memory', 'get', id]);
    expect(shown.stdout).toMatch(/The staging database port is 7654\n/);
    expect(shown.stdout).toMatch(/version 1 \(replaced [\d-]+T[\d:.]+Z\): The staging database port is 6543/);
  });

  it('refuses a time outside years 0001-9999 with exit code 2', async () => {
    const far = await run(['memory', 'add', 'x', '--namespace', 'cli/t', '--time', '9'.repeat(20)]);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/--time .* must be a time between 0001-01-01 and 9999-12-31/);
  });

  it('refuses a time it could only guess (no year, an impossible day, epoch seconds) with exit code 2, and stores nothing', async () => {
    for (const [value, message] of [
      ['-1', /is not a time/],
      ['May 8', /is not a time/],
      ['2024-02-30', /is not a time/],
      ['1700000000', /looks like epoch seconds.*Pass epoch ms \(1700000000000\)/],
    ] as const) {
      const refused = await run(['memory', 'add', `guessed ${value}`, '--namespace', 'cli/guess', '--time', value]);
      expect(refused.code, value).toBe(2);
      expect(refused.stderr, value).toMatch(message);
    }
    expect((await run(['memory', 'list', '--namespace', 'cli/guess'])).stdout).not.toMatch(/guessed/);
    const leap = await run(['memory', 'add', 'a leap day', '--namespace', 'cli/guess', '--time', '2024-02-29', '--json']);
    expect(leap.code).toBe(0);
  });

  it('takes back the namespace/id it prints: get, update and forget; a wrong namespace forgets nothing', async () => {
    const added = await run(['memory', 'add', 'Alice prefers tabs', '--namespace', 'cli/alpha']);
    const printed = /added (\S+)/.exec(added.stdout)?.[1] as string;
    expect(printed).toMatch(/^cli\/alpha\/[^/]+$/);
    const id = printed.slice('cli/alpha/'.length);
    expect((await run(['memory', 'get', printed])).stdout).toMatch(/Alice prefers tabs/);
    expect((await run(['memory', 'update', printed, 'Alice prefers tabs, four wide'])).code).toBe(0);
    const conflicting = await run(['memory', 'get', printed, '--namespace', 'cli/beta']);
    expect(conflicting.code).toBe(2);
    expect(conflicting.stderr).toMatch(/names namespace cli\/alpha, but --namespace says cli\/beta/);
    const wrong = await run(['memory', 'forget', `cli/beta/${id}`]);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/nothing was forgotten/);
    expect((await run(['memory', 'get', id])).stdout).toMatch(/four wide/);
    expect((await run(['memory', 'forget', printed])).stdout).toMatch(/forgot 1 record/);
    expect((await run(['memory', 'get', id])).code).toBe(3);
  });

  it('memory search keeps the bounds its help and the HTTP API state: --top-k 1 to 1000, --min-similarity -1 to 1', async () => {
    for (const [args, message] of [
      [['--top-k', '1000000'], /topK must be a whole number from 1 to 1000; got 1000000/],
      [['--min-similarity', '5'], /minSimilarity is a cosine, from -1 to 1; got 5/],
    ] as const) {
      const refused = await run(['memory', 'search', 'tabs', ...args]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
    expect((await run(['memory', 'search', 'tabs', '--top-k', '1000', '--min-similarity', '-1'])).code).toBe(0);
  });

  it('says what was wrong in the words of the flag: --ttl 0d, a missing import file', async () => {
    const zero = await run(['memory', 'add', 'x', '--namespace', 'cli/ttl', '--ttl', '0d']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--ttl "0d" is no time at all/);
    expect(zero.stderr).not.toMatch(/ttlMs/);
    const missing = await run(['memory', 'import', 'no-such-export.json']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/Import file not found: .*no-such-export\.json\. Pass the file that loci memory export wrote/);
    expect(missing.stderr).not.toMatch(/existing folder/);
    // A new record too long names the input, not an id that was generated and never stored.
    const long = await run(['memory', 'add', 'a'.repeat(100_001), '--namespace', 'cli/long']);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/The text of memory input 0 is 100001 characters; the limit is 100000/);
  });

  it('lists, searches and shows a stored row with time 1e300 instead of crashing', async () => {
    await writeRawRecord({ id: 'far-future', namespace: 'cli/bad', kind: 'note', text: 'a deploy note from the far future', time: 1e300, updatedAt: 1e300, mergedCount: 0 });
    for (const args of [
      ['memory', 'list', '--namespace', 'cli/bad'],
      ['memory', 'search', 'deploy note', '--namespace', 'cli/bad'],
      ['memory', 'get', 'far-future'],
    ]) {
      const result = await run(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/9999-12-31T23:59:59.999Z/);
      expect(result.stderr).toMatch(/warning: cli\/bad\/far-future: time 1e\+300 is outside years 0001–9999/);
    }
  });
});

describe('HTTP', () => {
  let server: ChildProcess;
  let base: string;
  const token = 'memory-integrity-token-0123456789abcdef';

  beforeAll(async () => {
    ({ process: server, base } = await startServer(['--root', repo, '--token', token], { cwd: workspace, env: { HOME: workspace } }));
  });

  afterAll(async () => {
    await stopServer(server);
  });

  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });

  it('answers 400 to a PATCH that changes nothing (empty, or a namespace alone: records do not move), and leaves updatedAt alone', async () => {
    expect((await post('/v1/memory/records', { namespace: 'http/p', id: 'patch-me', text: 'kept as it is' })).status).toBe(201);
    const read = async () => (await (await fetch(`${base}/v1/memory/records/patch-me`, { headers: { authorization: `Bearer ${token}` } })).json()).record;
    const before = await read();
    for (const body of [{}, { namespace: 'moved' }, { namespace: 'http/p' }]) {
      const patched = await fetch(`${base}/v1/memory/records/patch-me`, {
        method: 'PATCH',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      });
      expect(patched.status, JSON.stringify(body)).toBe(400);
      expect((await patched.json()).error.message).toMatch(/Nothing to update/);
    }
    expect((await read()).updatedAt).toBe(before.updatedAt);
  });

  it('answers 409 MEMORY_ID_CONFLICT to a re-POSTed id or the same id in another namespace', async () => {
    expect((await post('/v1/memory/records', { namespace: 'http/a', id: 'http-fact', text: 'the original text' })).status).toBe(201);
    for (const namespace of ['http/a', 'http/b']) {
      const again = await post('/v1/memory/records', { namespace, id: 'http-fact', text: 'overwritten?' });
      expect(again.status).toBe(409);
      expect((await again.json()).error).toMatchObject({ code: 'MEMORY_ID_CONFLICT', message: expect.stringMatching(/http-fact already exists/) });
    }
    const record = (await (await fetch(`${base}/v1/memory/records/http-fact`, { headers: { authorization: `Bearer ${token}` } })).json()).record;
    expect(record).toMatchObject({ namespace: 'http/a', text: 'the original text' });
  });

  it('answers 400 to a time outside years 0001-9999', async () => {
    const far = await post('/v1/memory/records', { namespace: 'http/t', text: 'x', time: 1e300 });
    expect(far.status).toBe(400);
    expect((await far.json()).error.code).toBe('INVALID_ARGUMENT');
    // A recall window past the times a record can have is refused too, not answered with nothing.
    for (const window of [{ since: 9e15 }, { until: -9e15 }]) {
      const recalled = await post('/v1/memory/recall', { query: 'x', ...window });
      expect(recalled.status, JSON.stringify(window)).toBe(400);
      expect((await recalled.json()).error.message).toMatch(/must be a time between 0001-01-01 and 9999-12-31/);
    }
  });
});

describe('MCP', () => {
  it('recall answers when a stored row has time 1e300', async () => {
    await writeRawRecord({ id: 'mcp-far-future', namespace: 'mcp/bad', kind: 'note', text: 'the boss fight happens in the far future', time: 1e300, updatedAt: 1e300, mergedCount: 0 });
    const client = new Client({ name: 'loci-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp', '--root', repo], env: { PATH: process.env.PATH ?? '', HOME: workspace }, stderr: 'pipe' }));
    try {
      const recalled = await client.callTool({ name: 'recall', arguments: { query: 'boss fight', namespaces: ['mcp/bad'] } });
      expect(recalled.isError, JSON.stringify(recalled.content)).toBeFalsy();
      const [record] = (recalled.structuredContent as { records: Array<{ id: string; time: string; warnings?: string[] }> }).records;
      expect(record).toMatchObject({ id: 'mcp-far-future', time: '9999-12-31T23:59:59.999Z', warnings: expect.arrayContaining([expect.stringMatching(/^time 1e\+300 is outside years 0001–9999/)]) });
    } finally {
      await client.close();
    }
  });
});
