import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoci } from '../support/run-cli.js';

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-memory-cli-'));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const run = (args: string[]) => runLoci(args, { cwd: workspace });

describe('loci memory', () => {
  it('adds, searches, lists, exports, forgets and imports', async () => {
    expect((await run(['memory', 'add', 'The', 'staging', 'database', 'is', 'on', 'port', '5433', '--namespace', 'agent/ops'])).code).toBe(0);
    const added = await run(['memory', 'add', 'Deploys', 'happen', 'on', 'Tuesdays', '--namespace', 'agent/ops', '--ttl', '30d', '--metadata', '{"source":"wiki"}', '--json']);
    expect(added.code).toBe(0);
    const { record } = JSON.parse(added.stdout);
    expect(record).toMatchObject({ namespace: 'agent/ops', kind: 'note', text: 'Deploys happen on Tuesdays', metadata: { source: 'wiki' } });
    expect(record.expiresAt - record.time).toBe(30 * 86_400_000);
    const interaction = await run(['memory', 'add', 'create a red cube', '--namespace', 'unity/s1', '--kind', 'interaction', '--outcome', 'error', '--feedback', 'no scene', '--json']);
    expect(JSON.parse(interaction.stdout).record.fields).toMatchObject({ prompt: 'create a red cube', outcome: 'error', feedback: 'no scene' });

    const search = await run(['memory', 'search', 'which', 'port', 'does', 'staging', 'use', '--namespace', 'agent/ops', '--json']);
    expect(search.code).toBe(0);
    const { results } = JSON.parse(search.stdout);
    expect(results[0]).toMatchObject({ namespace: 'agent/ops', kind: 'note', text: 'The staging database is on port 5433' });
    expect(typeof results[0].score).toBe('number');
    expect(results[0].signals.lexical).toBeGreaterThan(0);
    expect(results.every((result: { namespace: string }) => result.namespace === 'agent/ops')).toBe(true);
    expect(results[0].explanation).toBeUndefined();
    const explained = await run(['memory', 'search', 'staging', 'port', '--namespace', 'agent/ops', '--explain', '--json']);
    const first = JSON.parse(explained.stdout).results[0];
    expect(first.explanation.lexical).toMatchObject({ raw: first.signals.lexical, weight: 1 });
    const total = Object.values(first.explanation as Record<string, { contribution: number }>).reduce((sum, part) => sum + part.contribution, 0);
    expect(Math.abs(total - first.score)).toBeLessThan(1e-3);
    const text = (await run(['memory', 'search', 'staging', 'port', '--namespace', 'agent/ops', '--explain'])).stdout;
    expect(text).toMatch(/\[lexical [\d.]+ → [\d.]+ × 1 = [\d.]+; vector /);

    const outcome = JSON.parse((await run(['memory', 'search', 'red cube', '--outcome', 'success', '--json'])).stdout);
    expect(outcome.results).toEqual([]);

    const list = JSON.parse((await run(['memory', 'list', '--namespaces', '--json'])).stdout);
    expect(list.namespaces).toEqual([
      { namespace: 'agent/ops', records: 2 },
      { namespace: 'unity/s1', records: 1 },
    ]);

    const exported = await run(['memory', 'export', '--namespace', 'agent/ops', '--out', 'ops.json']);
    expect(exported.code).toBe(0);
    const file = JSON.parse(await readFile(join(workspace, 'ops.json'), 'utf8'));
    expect(file.records).toHaveLength(2);

    expect(JSON.parse((await run(['memory', 'forget', '--namespace', 'agent/ops', '--json'])).stdout)).toEqual({ forgotten: 2 });
    const imported = JSON.parse((await run(['memory', 'import', 'ops.json', '--json'])).stdout);
    expect(imported).toMatchObject({ format: 'loci', imported: 2, keptVectors: 2 });
    expect(JSON.parse((await run(['memory', 'list', '--namespace', 'agent/ops', '--json'])).stdout).records).toHaveLength(2);
  });

  it('gives clear errors and exit codes for bad input', async () => {
    // A namespace with nothing in it yet is a new session, not an error: no results, exit 0.
    const unknown = await run(['memory', 'search', 'x', '--namespace', 'agent/nobody', '--json']);
    expect(unknown.code).toBe(0);
    expect(JSON.parse(unknown.stdout).results).toEqual([]);
    expect((await run(['memory', 'search', 'x', '--namespace', 'bad space'])).code).toBe(2);
    const huge = await run(['memory', 'add', 'x'.repeat(100_001), '--namespace', 'big']);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/limit is 100000/);
    await writeFile(join(workspace, 'broken.json'), '{"Records": {"a": {"prompt": ""}}}');
    const broken = await run(['memory', 'import', 'broken.json', '--namespace', 'agent/go']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/prompt must be a non-empty string/);
    await writeFile(join(workspace, 'notjson.json'), '{oops');
    expect((await run(['memory', 'import', 'notjson.json'])).stderr).toMatch(/not valid JSON/);
    expect((await run(['memory', 'forget'])).code).toBe(2);
    expect((await run(['memory', 'add', 'x', '--namespace', 'a', '--ttl', 'soon'])).stderr).toMatch(/not a duration/);
    expect((await run(['memory', 'list', '--namespace', 'big'])).code).toBe(0);
  });

  it('loses nothing when several processes write at once', async () => {
    const entry = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
    const script = `
      const { createLoci } = await import(${JSON.stringify(entry)});
      const [root, writer] = process.argv.slice(1);
      const loci = createLoci({ root });
      const memory = await loci.memory();
      for (let i = 0; i < 40; i++) {
        await memory.add({ namespace: 'shared/log', text: 'writer ' + writer + ' event ' + i + ' ' + 'word' + (i * 7919 % 1000), id: 'w' + writer + '-' + i }, { dedupe: false });
      }
      await loci.close();
    `;
    const writers = [1, 2, 3, 4].map(
      (writer) =>
        new Promise<void>((resolve, reject) => {
          execFile(process.execPath, ['--input-type=module', '-e', script, workspace, String(writer)], { timeout: 120_000 }, (error, _stdout, stderr) =>
            error ? reject(new Error(`writer ${writer} failed: ${stderr}`)) : resolve(),
          );
        }),
    );
    await Promise.all(writers);
    const listed = JSON.parse((await run(['memory', 'list', '--namespace', 'shared/log', '--json'])).stdout).records as Array<{ id: string }>;
    expect(listed).toHaveLength(160);
    expect(new Set(listed.map((record) => record.id)).size).toBe(160);
    // Every record is searchable, with term ids that no other writer overwrote.
    for (const writer of [1, 2, 3, 4]) {
      const found = JSON.parse((await run(['memory', 'search', `writer ${writer} event 39`, '--namespace', 'shared/log', '--top-k', '1', '--json'])).stdout);
      expect(found.results[0].id).toBe(`w${writer}-39`);
    }
  });
});
