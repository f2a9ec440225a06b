import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci, type Loci } from '../../src/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cliPath, runLoci } from '../support/run-cli.js';
import { startServer } from '../support/serve.js';

/**
 * A repository where tests talk about the code more than the code does: every test repeats
 * the words of the question and the names of the symbols, as real test suites do.
 */
const files: Record<string, string> = {
  'src/compose.ts': [
    '/** Runs middleware in order; each may call next() to hand over to the one after it. */',
    'export function compose(middleware: Middleware[]) {',
    '  return (context: Context, next?: Next) => {',
    '    let index = -1;',
    '    const dispatch = (i: number): Promise<void> => {',
    "      if (i <= index) throw new Error('next() called multiple times');",
    '      index = i;',
    '      const handler = i === middleware.length ? next : middleware[i];',
    '      return handler ? Promise.resolve(handler(context, () => dispatch(i + 1))) : Promise.resolve();',
    '    };',
    '    return dispatch(0);',
    '  };',
    '}',
  ].join('\n'),
  'src/compose.test.ts': [
    "import { describe, expect, it } from 'vitest';",
    "import { compose } from './compose';",
    "describe('compose middleware chain', () => {",
    "  it('compose runs the middleware chain in order', async () => { const chain = compose([a, b]); await chain(ctx); expect(order).toEqual(['a', 'b']); });",
    "  it('compose middleware chain stops when next is not called', async () => { const chain = compose([stop, b]); await chain(ctx); });",
    "  it('compose middleware chain throws when next is called twice', async () => { const chain = compose([twice]); await expect(chain(ctx)).rejects.toThrow(); });",
    "  it('compose middleware chain passes context along the chain', async () => { const chain = compose([a]); await chain(ctx); });",
    '});',
  ].join('\n'),
  'src/scheduler.ts': [
    'export interface SchedulerJob { id?: number; flags?: number }',
    'export type SchedulerJobs = SchedulerJob | SchedulerJob[]',
    'const resolvedPromise = Promise.resolve()',
    'let currentFlushPromise: Promise<void> | null = null',
    '/** Waits for the next DOM update flush. */',
    'export function nextTick(fn?: () => void): Promise<void> {',
    '  const p = currentFlushPromise || resolvedPromise',
    '  return fn ? p.then(fn) : p',
    '}',
    'export const createApp = ((...args: unknown[]) => {',
    '  return { mount: () => args }',
    '}) as (...args: unknown[]) => { mount(): unknown }',
  ].join('\n'),
  'src/__tests__/scheduler.spec.ts': [
    "import { nextTick, createApp } from '../scheduler';",
    "test('nextTick waits', async () => { await nextTick(); await nextTick(); expect(await nextTick()).toBeUndefined(); });",
    "test('nextTick with callback', async () => { await nextTick(() => {}); await nextTick(); });",
    "test('createApp mounts', () => { createApp().mount(); createApp().mount(); });",
  ].join('\n'),
  'examples/chain.ts': "import { compose } from '../src/compose';\n// Example: compose a middleware chain\nexport const chain = compose([]);\n",
  'src/view.tsx': 'export function View() {\n  return <div>compose middleware chain view</div>;\n}\n',
  'bun.lock': '{ "lockfileVersion": 1, "workspaces": { "": { "name": "compose-middleware-chain" } } }\n',
  'deno.lock': '{ "version": "4", "remote": { "compose": "middleware chain" } }\n',
};

let workspace: string;
let repo: string;
let loci: Loci;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-code-search-'));
  repo = join(workspace, 'repo');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  const run = await runLoci(['index', repo, '--json'], { cwd: workspace });
  expect(run.code, run.stderr).toBe(0);
  loci = createLoci({ root: repo });
});

afterAll(async () => {
  await loci?.close();
  await rm(workspace, { recursive: true, force: true });
});

describe('code search: the implementation, not its tests', () => {
  it('classifies every file and shows the role in results', async () => {
    const { results } = await loci.search('compose middleware chain', { topK: 10, files: true });
    const roles = Object.fromEntries(results.map((result) => [result.path, result.role]));
    expect(roles['src/compose.ts']).toBe('implementation');
    expect(roles['src/compose.test.ts']).toBe('test');
    expect(roles['examples/chain.ts']).toBe('example');
  });

  it('ranks the implementation above the test that repeats the question', async () => {
    const { results } = await loci.search('compose middleware chain', { topK: 5, files: true });
    expect(results[0]?.path).toBe('src/compose.ts');
    // …while the test is still there, below it.
    expect(results.map((result) => result.path)).toContain('src/compose.test.ts');
    // Turning the priors off (a query that asks for tests) puts the test back on top.
    const tests = await loci.search('compose middleware chain tests', { topK: 1, files: true });
    expect(tests.results[0]?.path).toBe('src/compose.test.ts');
  });

  it('a role named in the query as typed lifts it: "examples" (which a stemmer cuts to "exampl") asks for examples', async () => {
    const plain = await loci.search('compose a middleware chain', { topK: 3, files: true });
    expect(plain.results[0]?.path).toBe('src/compose.ts');
    const asked = await loci.search('examples: compose a middleware chain', { topK: 3, files: true });
    expect(asked.results[0]?.path).toBe('examples/chain.ts');
  });

  it('orders only the first five: a test the query matched still follows the code on the first page', async () => {
    const { results } = await loci.search('compose middleware chain', { topK: 10, files: true, explain: true });
    const paths = results.map((result) => result.path);
    expect(paths.slice(0, 1)).toEqual(['src/compose.ts']);
    expect(paths).toContain('src/compose.test.ts');
    const scores = results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Below the lead a result keeps its retrieval place; its score is capped at the one above it.
    const lifted = results.slice(5).find((result) => result.adjustments?.capped !== undefined);
    if (lifted) expect(lifted.score).toBeLessThanOrEqual(lifted.adjustments?.capped as number);
  });

  it('puts the definition first for a query that is only a name', async () => {
    for (const name of ['nextTick', 'createApp']) {
      const { results } = await loci.search(name, { topK: 3 });
      expect(results[0]?.path, name).toBe('src/scheduler.ts');
      expect(results[0]?.symbol, name).toBe(name);
    }
  });

  it('--symbol returns only definitions, implementation first', async () => {
    const run = await runLoci(['search', '--symbol', 'nextTick', '--root', repo, '--json'], { cwd: workspace });
    expect(run.code, run.stderr).toBe(0);
    const { results } = JSON.parse(run.stdout);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ path: 'src/scheduler.ts', symbol: 'nextTick', role: 'implementation', score: 1 });
    const missing = await runLoci(['search', '--symbol', 'noSuchThing', '--root', repo, '--json'], { cwd: workspace });
    expect(JSON.parse(missing.stdout)).toMatchObject({ results: [], warnings: ['No indexed chunk defines "noSuchThing".'] });
    const bad = await runLoci(['search', '--symbol', 'how does it work', '--root', repo], { cwd: workspace });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a symbol name/);
  });
});

describe('code search: filters that do what they say', () => {
  it('--role and --exclude-role filter by what a file is for', async () => {
    const only = await loci.search('compose middleware chain', { topK: 20, roles: ['test'] });
    expect(new Set(only.results.map((result) => result.role))).toEqual(new Set(['test']));
    const without = await loci.search('compose middleware chain', { topK: 20, excludeRoles: ['test', 'example'] });
    expect(without.results.length).toBeGreaterThan(0);
    expect(without.results.some((result) => result.role === 'test' || result.role === 'example')).toBe(false);
    const run = await runLoci(['search', 'compose', '--root', repo, '--exclude-role', 'tests'], { cwd: workspace });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Unknown excluded role "tests"/);
  });

  it('language aliases: ts is typescript and includes tsx', async () => {
    const ts = await loci.search('compose middleware chain view', { topK: 20, languages: ['ts'] });
    const languages = new Set(ts.results.map((result) => result.language));
    expect(languages.has('tsx')).toBe(true);
    expect(languages.has('typescript')).toBe(true);
    const tsx = await loci.search('compose middleware chain view', { topK: 20, languages: ['typescript'] });
    expect(tsx.results.some((result) => result.language === 'tsx')).toBe(true);
    await expect(loci.search('compose', { languages: ['klingon'] })).rejects.toThrow(/Unknown language "klingon"/);
  });

  it('include globs are OR-ed, exclude globs AND-ed', async () => {
    const both = await loci.search('compose middleware chain', { topK: 20, paths: ['!**/*.test.ts', '!examples'] });
    const paths = new Set(both.results.map((result) => result.path));
    expect(paths.has('src/compose.test.ts')).toBe(false);
    expect(paths.has('examples/chain.ts')).toBe(false);
    expect(paths.has('src/compose.ts')).toBe(true);
    const either = await loci.search('compose middleware chain', { topK: 20, paths: ['examples', 'src/compose.ts'] });
    expect(new Set(either.results.map((result) => result.path))).toEqual(new Set(['examples/chain.ts', 'src/compose.ts']));
  });

  it('lock files of every package manager are not indexed', async () => {
    const files = (await loci.files()).map((file) => file.path);
    expect(files).not.toContain('bun.lock');
    expect(files).not.toContain('deno.lock');
  });
});

describe('code search: scores and roots', () => {
  it('--threshold filters on the score that is shown', async () => {
    const all = await loci.search('compose middleware chain', { topK: 20 });
    const cut = (all.results[2]?.score ?? 0) + 1e-9;
    const kept = await loci.search('compose middleware chain', { topK: 20, threshold: cut });
    expect(kept.results.length).toBeGreaterThan(0);
    expect(kept.results.every((result) => result.score >= cut)).toBe(true);
    expect(kept.results.length).toBeLessThan(all.results.length);
    for (const result of all.results) expect(result.score).toBeLessThanOrEqual(1);
  });

  it('commands in a subfolder use the nearest enclosing index and say so', async () => {
    const run = await runLoci(['search', 'nextTick', '--json'], { cwd: join(repo, 'src', '__tests__') });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).results[0].path).toBe('src/scheduler.ts');
    expect(run.stderr).toContain(`using the index of ${repo}`);
    const status = await runLoci(['status', '--json'], { cwd: join(repo, 'src') });
    expect(status.code, status.stderr).toBe(0);
    // Outside any index it is still an error that says how to fix it.
    const outside = await runLoci(['search', 'x'], { cwd: workspace });
    expect(outside.code).toBe(3);
  });

  it('--store alone reads the store against the folder that holds its .loci, from anywhere', async () => {
    for (const store of [join(repo, '.loci'), join(repo, '.loci', 'index.db')]) {
      // From an unrelated folder, and from inside another indexed project: neither is the root.
      for (const cwd of [workspace, join(repo, 'src')]) {
        const run = await runLoci(['search', 'compose middleware chain', '--store', store, '--json'], { cwd });
        expect(run.code, run.stderr).toBe(0);
        const results = JSON.parse(run.stdout).results as Array<{ path: string; stale?: boolean }>;
        expect(results[0]?.path).toBe('src/compose.ts');
        expect(results.filter((result) => result.stale)).toEqual([]);
        expect(run.stderr).toContain(`using ${repo} as the root of the store`);
      }
    }
    // A store kept elsewhere is read against the current folder, and stderr says so.
    const elsewhere = join(workspace, 'elsewhere-store');
    const index = await runLoci(['index', repo, '--store', elsewhere, '--json'], { cwd: workspace });
    expect(index.code, index.stderr).toBe(0);
    const run = await runLoci(['search', 'compose', '--store', elsewhere, '--json'], { cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('pass --root to name the folder it indexes');
  });
});

describe('code search over HTTP and MCP', () => {
  it('HTTP: /v1/search takes roles, /v1/symbols finds definitions', async () => {
    const token = 'code-search-test-token-0123456789';
    const { process: server, base } = await startServer(['--root', repo, '--token', token], { cwd: workspace });
    try {
      const post = async (path: string, body: unknown) =>
        (await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) })).json();
      const tests = await post('/v1/search', { query: 'compose middleware chain', roles: ['test'], topK: 5 });
      expect(tests.results.length).toBeGreaterThan(0);
      expect(tests.results.every((result: { role: string }) => result.role === 'test')).toBe(true);
      const symbols = await post('/v1/symbols', { name: 'createApp' });
      expect(symbols.results[0]).toMatchObject({ path: 'src/scheduler.ts', symbol: 'createApp', role: 'implementation' });
      const bad = await post('/v1/search', { query: 'compose', roles: ['nonsense'] });
      expect(bad.error.code).toBe('INVALID_ARGUMENT');
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('MCP: find_symbol and search_code with excludeRoles', async () => {
    const client = new Client({ name: 'code-search-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp', '--root', repo], env: { PATH: process.env.PATH ?? '' }, stderr: 'ignore' }));
    try {
      const found = await client.callTool({ name: 'find_symbol', arguments: { name: 'nextTick' } });
      expect(found.isError).toBeFalsy();
      expect((found.structuredContent as { results: Array<{ path: string }> }).results[0]?.path).toBe('src/scheduler.ts');
      const searched = await client.callTool({ name: 'search_code', arguments: { query: 'compose middleware chain', excludeRoles: ['test'] } });
      const paths = (searched.structuredContent as { results: Array<{ path: string; role: string }> }).results.map((result) => result.role);
      expect(paths).not.toContain('test');
      // The text an agent reads names a non-implementation file's role; roles narrow find_symbol.
      const all = await client.callTool({ name: 'search_code', arguments: { query: 'compose middleware chain', topK: 20 } });
      const text = (all.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(text).toMatch(/compose\.test\.ts:\d+-\d+ \([^)]*test\)/);
      expect(text).not.toMatch(/implementation\)/);
      const inTests = await client.callTool({ name: 'find_symbol', arguments: { name: 'nextTick', roles: ['test'] } });
      // nextTick is defined only by implementation: asking for tests' definitions finds none.
      expect((inTests.structuredContent as { results: unknown[] }).results).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
