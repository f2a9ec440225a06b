// The PostgreSQL store end to end, through the built library and CLI: an engine indexing into
// Postgres (on its worker thread), searching, keeping memory beside the index, and
// `loci migrate` both ways without re-embedding. The server is PGlite + pgvector on 127.0.0.1
// (or LOCI_TEST_POSTGRES_URL), driven by the real `pg` client.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, uniqueNamespace, type TestPostgres } from '../../src/store/test-support/pglite-server.js';
import { runLoci } from '../support/run-cli.js';
import { writeSampleRepo } from '../support/sample-repo.js';

type Library = typeof import('../../src/index.js');
let library: Library;
let server: TestPostgres;
let workspace: string;
let repo: string;

beforeAll(async () => {
  library = (await import(join(process.cwd(), 'dist/index.js'))) as Library;
  server = await startTestPostgres();
  workspace = await mkdtemp(join(tmpdir(), 'loci-pg-'));
  repo = join(workspace, 'repo');
  await writeSampleRepo(repo);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await rm(workspace, { recursive: true, force: true });
}, 30_000);

describe('PostgreSQL store through the engine and the CLI', () => {
  it('indexes, searches, re-indexes nothing when nothing changed, and keeps memory in its own namespace', async () => {
    const store = `${server.url}?namespace=${uniqueNamespace('engine')}`;
    const loci = library.createLoci({ root: repo, store });
    try {
      const events: string[] = [];
      const first = await loci.index({ onProgress: (event) => events.push(event.type) });
      expect(first.files.added).toBeGreaterThan(3);
      expect(events).toContain('worker-started');
      expect(first.store).not.toContain('@127.0.0.1:0');
      const lexical = await loci.search('renderInvoiceTotal', { mode: 'lexical', topK: 3 });
      expect(lexical.results[0]?.path).toBe('src/invoice.ts');
      const hybrid = await loci.search('how are refunds issued', { topK: 3 });
      expect(hybrid.results.map((result) => result.path)).toContain('README.md');
      const again = await loci.index();
      expect(again.files.indexed).toBe(0);
      expect(again.embeddings.computed).toBe(0);
      const status = await loci.status();
      expect(status.files).toBe(first.files.total);

      const memory = await loci.memory();
      await memory.add({ namespace: 'agent/ops', text: 'The staging database listens on port 5433' });
      const hits = await memory.recall('which port does staging use', { namespaces: ['agent/ops'] });
      expect(hits[0]?.record.text).toContain('5433');
    } finally {
      await loci.close();
    }
    // A second engine (another process, say) sees the same index and memory.
    const other = library.createLoci({ root: repo, store, config: { indexing: { worker: false } } });
    try {
      expect((await other.search('InvoiceRepository', { topK: 1 })).results[0]?.path).toBe('src/invoice.ts');
      expect(await (await other.memory()).list({ namespaces: ['agent/ops'] })).toHaveLength(1);
    } finally {
      await other.close();
    }
  }, 120_000);

  it('loci migrate copies index and memory SQLite → Postgres → SQLite with nothing re-embedded', async () => {
    const sqliteStore = join(workspace, 'store-a');
    const loci = library.createLoci({ root: repo, store: sqliteStore });
    const indexed = await loci.index();
    await (await loci.memory()).add({ namespace: 'notes', text: 'Invoices are rendered in cents, then formatted' });
    await loci.close();

    const pgStore = `${server.url}?namespace=${uniqueNamespace('migrated')}`;
    const toPg = await runLoci(['migrate', '--from', sqliteStore, '--to', pgStore, '--json'], { cwd: workspace });
    expect(toPg.stderr).toBe('');
    expect(toPg.code).toBe(0);
    const summary = JSON.parse(toPg.stdout) as { index: { files: number; chunks: number; vectors: number }; memory?: { files: number } };
    expect(summary.index.files).toBe(indexed.files.total);
    expect(summary.index.chunks).toBe(indexed.chunks.total);
    expect(summary.index.vectors).toBe(indexed.chunks.total);
    expect(summary.memory?.files).toBe(1);

    // Re-running resumes: everything is already there.
    const again = JSON.parse((await runLoci(['migrate', '--from', sqliteStore, '--to', pgStore, '--json'], { cwd: workspace })).stdout) as { index: { files: number; skipped: number } };
    expect(again.index).toMatchObject({ files: 0, skipped: indexed.files.total });

    const back = join(workspace, 'store-b');
    const toSqlite = await runLoci(['migrate', '--from', pgStore, '--to', back, '--json'], { cwd: workspace });
    expect(toSqlite.code).toBe(0);

    // Same answers from all three stores, and an index run on the copy re-embeds nothing.
    for (const store of [pgStore, back]) {
      const search = await runLoci(['search', 'renderInvoiceTotal', '--root', repo, '--store', store, '--json'], { cwd: workspace });
      expect(search.code).toBe(0);
      expect((JSON.parse(search.stdout) as { results: Array<{ path: string }> }).results[0]?.path).toBe('src/invoice.ts');
    }
    const copy = library.createLoci({ root: repo, store: back });
    try {
      const rerun = await copy.index();
      expect(rerun.files.indexed).toBe(0);
      expect(rerun.embeddings.computed).toBe(0);
      const recalled = await (await copy.memory()).recall('how are invoices rendered', { namespaces: ['notes'] });
      expect(recalled[0]?.record.text).toContain('cents');
    } finally {
      await copy.close();
    }

    // Bad targets are refused with a clear error, and nothing is written.
    const same = await runLoci(['migrate', '--from', sqliteStore, '--to', sqliteStore], { cwd: workspace });
    expect(same.code).not.toBe(0);
    expect(same.stderr).toMatch(/same store/);
    await writeFile(join(workspace, 'not-a-db.db'), 'hello');
    const foreign = await runLoci(['migrate', '--from', sqliteStore, '--to', join(workspace, 'not-a-db.db')], { cwd: workspace });
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toMatch(/not an SQLite database/);
  }, 180_000);
});
