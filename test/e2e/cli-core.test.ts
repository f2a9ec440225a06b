import { copyFile, mkdir, mkdtemp, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoci } from '../support/run-cli.js';
import { writeSampleRepo } from '../support/sample-repo.js';

let workspace: string;
let repo: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-e2e-'));
  repo = join(workspace, 'repo');
  await mkdir(repo);
  await writeSampleRepo(repo);
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('loci index / search / status on a real repository', () => {
  it('indexes, honouring ignore rules and counting skips', async () => {
    const run = await runLoci(['index', repo, '--embedder', 'none', '--json'], { cwd: workspace });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    const indexed = ['.gitignore', 'README.md', 'important.log', 'src/invoice.ts', 'src/money.ts', 'src/payments/gateway.py', 'src/server.go'];
    expect(summary.files.added).toBe(indexed.length);
    expect(summary.files.total).toBe(indexed.length);
    expect(summary.skipped.binary).toBe(2);
    expect(summary.skipped.ignored).toBe(3); // debug.log, secrets/, and dist (build output, ignored by default)
    expect(summary.skipped['excluded-directory']).toBe(2); // node_modules and the store's own .loci
    expect(summary.chunks.total).toBeGreaterThan(0);
    expect(summary.embedder).toBe('none');
  });

  it('finds the right file, with JSON results in the documented shape', async () => {
    const run = await runLoci(['search', 'refund the charge', '--root', repo, '--json'], { cwd: workspace });
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(Object.keys(body).sort()).toEqual(['degraded', 'degradedParts', 'results', 'retrieval', 'warnings']);
    // A one-shot search reads the segment file the index run wrote: the same index a long-lived process holds.
    expect(body.retrieval).toMatchObject({ index: 'memory', lexical: 'bm25' });
    const top = body.results[0];
    expect(top.path).toBe('src/payments/gateway.py');
    for (const key of ['path', 'startLine', 'endLine', 'score', 'text']) expect(top).toHaveProperty(key);
    expect(top.text).toContain('issue_refund');
  });

  it('names a misspelled LOCI_* variable instead of ignoring it without a word', async () => {
    const run = await runLoci(['search', 'refund the charge', '--root', repo], { cwd: workspace, env: { LOCI_SEARCH_TOPK: '1', LOCI_TOKEN: 'known' } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: LOCI_SEARCH_TOPK is not a loci variable and is ignored; did you mean LOCI_SEARCH_TOP_K?');
    expect(run.stderr.match(/is not a loci variable/g)).toHaveLength(1);
  });

  it('matches identifiers by their parts and ranks files with --files', async () => {
    const run = await runLoci(['search', 'find by id', '--root', repo, '--files', '--json'], { cwd: workspace });
    const body = JSON.parse(run.stdout);
    expect(body.results[0].path).toBe('src/invoice.ts');
    const paths = body.results.map((result: { path: string }) => result.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('filters by path glob and language before ranking', async () => {
    const byPath = JSON.parse((await runLoci(['search', 'money total invoice', '--root', repo, '--path', 'src/money.ts', '--json'], { cwd: workspace })).stdout);
    expect(byPath.results.map((result: { path: string }) => result.path)).toEqual(['src/money.ts']);
    const byLanguage = JSON.parse((await runLoci(['search', 'health handler refund invoice', '--root', repo, '--lang', 'go', '--json'], { cwd: workspace })).stdout);
    expect(byLanguage.results.length).toBeGreaterThan(0);
    expect(byLanguage.results.every((result: { path: string }) => result.path.endsWith('.go'))).toBe(true);
  });

  it('survives hostile queries', async () => {
    for (const query of ['"unbalanced', 'NEAR(a b) AND OR NOT', '*', "'; DROP TABLE chunks; --", 'col:value ^x']) {
      const run = await runLoci(['search', query, '--root', repo, '--json'], { cwd: workspace });
      expect(run.code, `${query}: ${run.stderr}`).toBe(0);
      expect(JSON.parse(run.stdout)).toHaveProperty('results');
    }
  });

  it('re-indexes incrementally: no-op, update, add, delete', async () => {
    const noop = JSON.parse((await runLoci(['index', repo, '--embedder', 'none', '--json'], { cwd: workspace })).stdout);
    expect(noop.files.indexed).toBe(0);
    expect(noop.files.unchanged).toBe(7);

    await writeFile(join(repo, 'src/money.ts'), 'export function formatCurrency(cents: number): string {\n  return String(cents);\n}\n');
    await writeFile(join(repo, 'src/tax.ts'), 'export const vatRate = 0.2;\n');
    await unlink(join(repo, 'src/server.go'));
    // a touched file with the same content is re-hashed, not re-chunked
    const future = new Date(Date.now() + 60_000);
    await utimes(join(repo, 'README.md'), future, future);

    const status = JSON.parse((await runLoci(['status', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(status.changes.modified).toEqual(expect.arrayContaining(['src/money.ts', 'README.md']));
    expect(status.changes.added).toEqual(['src/tax.ts']);
    expect(status.changes.deleted).toEqual(['src/server.go']);
    // Until re-indexed, results from changed or vanished files say so.
    const stale = JSON.parse((await runLoci(['search', 'healthHandler', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(stale.results[0]).toMatchObject({ path: 'src/server.go', stale: true, deleted: true });
    const changed = JSON.parse((await runLoci(['search', 'formatCurrency', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(changed.results[0]).toMatchObject({ path: 'src/money.ts', stale: true });
    expect(changed.results[0].deleted).toBeUndefined();
    const text = await runLoci(['search', 'healthHandler', '--root', repo], { cwd: workspace });
    expect(text.stdout).toMatch(/src\/server\.go.*\[stale: deleted since indexed\]/);
    const fresh = JSON.parse((await runLoci(['search', 'refund the charge', '--root', repo, '--json', '--path', 'src/payments'], { cwd: workspace })).stdout);
    expect(fresh.results[0].stale).toBeUndefined();

    const update = JSON.parse((await runLoci(['index', repo, '--embedder', 'none', '--json'], { cwd: workspace })).stdout);
    expect(update.files).toMatchObject({ added: 1, updated: 1, removed: 1, total: 7 });
    expect(update.files.unchanged).toBe(5);

    const search = JSON.parse((await runLoci(['search', 'formatCurrency', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(search.results[0].path).toBe('src/money.ts');
    const gone = JSON.parse((await runLoci(['search', 'healthHandler', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(gone.results.map((result: { path: string }) => result.path)).not.toContain('src/server.go');
  });

  it('prints status as text and JSON', async () => {
    const text = await runLoci(['status', '--root', repo], { cwd: workspace });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/files:\s+7/);
    const json = JSON.parse((await runLoci(['status', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(json).toMatchObject({ files: 7, embedder: 'none' });
    expect(json.lastRun.skipped.binary).toBe(2);
  });
});

describe('user errors: one clear line, documented exit code, no stack trace', () => {
  const expectCleanError = (run: { code: number; stderr: string }, code: number, pattern: RegExp) => {
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(pattern);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  };

  it('missing folder → 3', async () => {
    expectCleanError(await runLoci(['index', join(workspace, 'nope')], { cwd: workspace }), 3, /Folder not found/);
  });

  it('no index yet → 3', async () => {
    const empty = join(workspace, 'empty');
    await mkdir(empty, { recursive: true });
    expectCleanError(await runLoci(['search', 'x', '--root', empty], { cwd: workspace }), 3, /No loci index/);
  });

  it('empty query → 2', async () => {
    expectCleanError(await runLoci(['search', '  ', '--root', repo], { cwd: workspace }), 2, /query is empty/);
  });

  it('bad flag → 2', async () => {
    const run = await runLoci(['search', 'x', '--topk', '3', '--root', repo], { cwd: workspace });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^loci: unknown option '--topk'/);
    expect(run.stderr).toMatch(/Did you mean --top-k\?/);
    expect(run.stderr).toMatch(/loci <command> --help/);
  });

  it('a --config file that cannot be read says how to fix that, not how to fix values → 2', async () => {
    const missing = await runLoci(['search', 'x', '--root', repo, '--config', 'no-such-config.json'], { cwd: workspace });
    expectCleanError(missing, 2, /Cannot read config file .*no-such-config\.json.*Check the path given to --config/);
    expect(missing.stderr).not.toMatch(/Fix each listed value/);
    expectCleanError(await runLoci(['search', 'x', '--root', repo, '--config', workspace], { cwd: workspace }), 2, /Pass --config a JSON file, not a folder/);
  });

  it('a file a --config file names is read from beside that file, not from the current folder', async () => {
    const conf = join(workspace, 'conf');
    const small = join(workspace, 'small');
    await mkdir(conf, { recursive: true });
    await mkdir(small, { recursive: true });
    await copyFile(fileURLToPath(new URL('../../models/loci-static-v1.bin', import.meta.url)), join(conf, 'mine.bin'));
    await writeFile(join(small, 'parse.js'), 'export function parseConfig(text) {\n  return JSON.parse(text);\n}\n');
    await writeFile(join(conf, 'loci.json'), JSON.stringify({ embedder: 'static:./mine.bin' }));
    const indexed = await runLoci(['index', small, '--config', join('conf', 'loci.json'), '--json'], { cwd: workspace });
    expect(indexed.stderr).toBe('');
    expect(JSON.parse(indexed.stdout).embedder).toContain(join(conf, 'mine.bin'));
    await writeFile(join(conf, 'ranked.json'), JSON.stringify({ embedder: 'static:./mine.bin', search: { ranker: 'rankers/mine.json' } }));
    const ranked = await runLoci(['search', 'parse config', '--root', small, '--config', join('conf', 'ranked.json')], { cwd: workspace });
    expectCleanError(ranked, 2, new RegExp(`Cannot read the ranker model ${join(conf, 'rankers', 'mine.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('bad config lists every bad key with where it came from → 2', async () => {
    const configured = join(workspace, 'configured');
    await mkdir(configured, { recursive: true });
    await writeFile(join(configured, 'loci.config.json'), JSON.stringify({ sorces: {}, chunking: { tokenBudget: 'big' } }));
    const run = await runLoci(['search', 'x', '--root', configured, '--threshold', '-2'], { cwd: workspace, env: { LOCI_SEARCH_TOP_K: 'many' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/sorces.*unknown key/);
    expect(run.stderr).toMatch(/chunking\.tokenBudget \(from .*loci\.config\.json\)/);
    expect(run.stderr).toMatch(/search\.topK \(from LOCI_SEARCH_TOP_K\)/);
    expect(run.stderr).toMatch(/search\.threshold \(from --threshold\)/);
  });

  it("a store that is not loci's → 4, file untouched", async () => {
    const foreign = join(workspace, 'foreign.db');
    await writeFile(foreign, 'not a database');
    expectCleanError(await runLoci(['index', repo, '--store', foreign], { cwd: workspace }), 4, /not an SQLite database/);
  });
});

describe('loci eval', () => {
  it('scores a BEIR folder and prints the documented JSON', async () => {
    const dataset = join(workspace, 'beir');
    await mkdir(join(dataset, 'qrels'), { recursive: true });
    const corpus = [
      { _id: 'd1', title: 'Cats', text: 'Cats purr and sleep most of the day.' },
      { _id: 'd2', title: 'Dogs', text: 'Dogs bark at the mail carrier.' },
      { _id: 'd3', title: 'Fish', text: 'Fish swim in schools to avoid predators.' },
    ];
    const queries = [
      { _id: 'q1', text: 'why do cats purr', metadata: { category: 1 } },
      { _id: 'q2', text: 'dogs barking', metadata: { category: 2 } },
      { _id: 'q3', text: 'unjudged query' },
    ];
    await writeFile(join(dataset, 'corpus.jsonl'), corpus.map((line) => JSON.stringify(line)).join('\n'));
    await writeFile(join(dataset, 'queries.jsonl'), queries.map((line) => JSON.stringify(line)).join('\n'));
    await writeFile(join(dataset, 'qrels', 'dev.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n');
    const run = await runLoci(['eval', dataset, '--mode', 'lexical', '--json'], { cwd: workspace });
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ 'ndcg@10': 1, 'mrr@10': 1, 'recall@10': 1, 'recall@100': 1, queries: 2 });
    expect(report.categories['1'].queries).toBe(1);

    // The same set as memory records, each query answered inside its own namespace.
    const scoped = join(workspace, 'beir-memory');
    await mkdir(join(scoped, 'qrels'), { recursive: true });
    const turns = [
      { _id: 'a:1', text: 'Ann: I adopted a cat named Miso', metadata: { conversation: 'a', session_date_time: '1:56 pm on 8 May, 2023' } },
      { _id: 'a:2', text: 'Ben: Nice, does it purr a lot?', metadata: { conversation: 'a', session_date_time: '1:56 pm on 8 May, 2023' } },
      { _id: 'b:1', text: 'Cid: I adopted a cat too, named Miso as well', metadata: { conversation: 'b', session_date_time: '2:00 pm on 9 May, 2023' } },
    ];
    await writeFile(join(scoped, 'corpus.jsonl'), turns.map((line) => JSON.stringify(line)).join('\n'));
    await writeFile(join(scoped, 'queries.jsonl'), JSON.stringify({ _id: 'q', text: 'what is the cat called', metadata: { conversation: 'a' } }));
    await writeFile(join(scoped, 'qrels', 'dev.tsv'), 'query-id\tcorpus-id\tscore\nq\ta:1\t1\n');
    const memory = await runLoci(['eval', scoped, '--target', 'memory', '--namespace-field', 'conversation', '--json'], { cwd: workspace });
    expect(memory.stderr).toBe('');
    expect(JSON.parse(memory.stdout)).toMatchObject({ 'mrr@10': 1, 'recall@10': 1, queries: 1 });
  });
});

describe('loci watch checks its flags before it starts', () => {
  it('refuses a --debounce that is not whole milliseconds up to a minute (exit 2)', async () => {
    for (const value of ['abc', '-5', '1e9', '60001']) {
      const run = await runLoci(['watch', repo, '--debounce', value], { cwd: workspace });
      expect(run.code, value).toBe(2);
      expect(run.stderr).toMatch(/--debounce takes whole milliseconds from 0 to 60000/);
    }
  });
});

describe('loci status tells deleted files from files now excluded', () => {
  it('lists an indexed file that a new ignore rule skips as excluded, not deleted', async () => {
    const copy = join(workspace, 'status-excluded');
    await mkdir(copy);
    await writeSampleRepo(copy);
    expect((await runLoci(['index', copy, '--embedder', 'none'], { cwd: workspace })).code).toBe(0);
    await writeFile(join(copy, '.gitignore'), 'dist/\n*.log\nsecrets/\n!important.log\nsrc/money.ts\n');
    await unlink(join(copy, 'src', 'server.go'));
    const status = JSON.parse((await runLoci(['status', '--root', copy, '--json'], { cwd: workspace })).stdout);
    expect(status.changes.excluded).toEqual(['src/money.ts']);
    expect(status.changes.deleted).toEqual(['src/server.go']);
    const text = await runLoci(['status', '--root', copy], { cwd: workspace });
    expect(text.stdout).toMatch(/1 missing \(deleted\), 1 now excluded/);
    expect(text.stdout).toMatch(/excluded +src\/money\.ts/);
  });
});
