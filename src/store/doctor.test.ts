import { spawnSync } from 'node:child_process';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkStore, type StoreReport } from './doctor.js';
import { resolveStoreLocation, vectorGraphName } from './location.js';
import { graphFileSum, keyListTrailer, SUM_MARK } from './graph-file-sum.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import { CURRENT_SCHEMA_VERSION } from './sqlite/schema.js';
import { catalogEntry, chunk } from './test-support/store-contract.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-doctor-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeIndex(): Promise<string> {
  const location = resolveStoreLocation(root);
  const store = openSqliteStore({ file: location.kind === 'sqlite' ? location.file : '', create: true });
  await store.writeFile({ entry: catalogEntry('a.ts', { chunkCount: 2 }), chunks: [chunk('a.ts', 1, 'alpha beta'), chunk('a.ts', 5, 'gamma delta')] });
  await store.writeFile({ entry: catalogEntry('b.ts', { chunkCount: 1 }), chunks: [chunk('b.ts', 1, 'epsilon')] });
  await store.close();
  return join(root, '.loci', 'index.db');
}

const check = (): StoreReport => checkStore(resolveStoreLocation(root), root);
const finding = (report: StoreReport, name: string) => report.findings.filter((item) => item.check === name);

describe('loci doctor', () => {
  it('reports a fresh store healthy, private to its owner', async () => {
    await writeIndex();
    const report = check();
    expect(report.healthy).toBe(true);
    expect(report.findings.every((item) => item.status === 'ok')).toBe(true);
    expect(statSync(join(root, '.loci')).mode & 0o777).toBe(0o700);
  });

  it('upgrades a store of schema 1: its FTS5 table is dropped, every row kept, and the store stays healthy', async () => {
    const file = await writeIndex();
    // Schema 1 as an older loci left it: the same tables plus FTS5, which nothing reads now.
    const old = new Database(file);
    old.exec(`CREATE VIRTUAL TABLE chunk_fts USING fts5(path, symbols, heading, body, tokenize = "unicode61 remove_diacritics 0 tokenchars '_'")`);
    old.prepare("UPDATE meta SET value = '1' WHERE key = 'schema_version'").run();
    old.close();
    expect(check().healthy).toBe(true);
    const store = openSqliteStore({ file });
    expect((await store.getMeta()).schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
    expect((await store.scanIndexRows({})).map((row) => row.path)).toEqual(['a.ts', 'a.ts', 'b.ts']);
    await store.close();
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 'chunk_fts%'").pluck().get()).toBe(0);
    reader.close();
    expect(check().healthy).toBe(true);
  });

  it('upgrades a store of schema 2: deletions are counted from then on, by any writer', async () => {
    const file = await writeIndex();
    const old = new Database(file);
    old.exec("DROP TRIGGER chunk_deletions; DELETE FROM meta WHERE key = 'chunk_deletions'; UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    old.close();
    const store = openSqliteStore({ file });
    expect((await store.getMeta()).schemaVersion).toBe(CURRENT_SCHEMA_VERSION);
    expect(await store.chunkDeletions?.()).toBe(0);
    await store.close();
    // Another connection (an older build, a script) deleting rows still moves the count.
    const other = new Database(file);
    other.prepare("DELETE FROM chunks WHERE path = 'a.ts'").run();
    other.close();
    const reopened = openSqliteStore({ file });
    expect(await reopened.chunkDeletions?.()).toBe(2);
    await reopened.close();
  });

  it('counts orphan rows', async () => {
    const file = await writeIndex();
    const db = new Database(file);
    db.prepare("DELETE FROM files WHERE path = 'b.ts'").run();
    db.close();
    const orphans = finding(check(), 'orphan rows');
    expect(orphans).toEqual([expect.objectContaining({ status: 'warning', detail: '1 chunks without a file row' })]);
  });

  it('flags stale, half-saved and unpaired vector-graph files', async () => {
    await writeIndex();
    const folder = join(root, '.loci');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    writeFileSync(join(folder, 'vectors-0123456789ab-g2.hnsw'), 'x');
    writeFileSync(join(folder, 'vectors-fedcba987654.hnsw'), 'x');
    writeFileSync(join(folder, 'memory-vectors-0123456789ab-g2.hnsw.tmp'), 'x');
    writeFileSync(join(folder, `memory-vectors-0123456789ab-g2.hnsw.keys.${dead}.abc123.tmp`), 'x');
    const graphs = finding(check(), 'graph files');
    expect(graphs.map((item) => item.detail).sort()).toEqual([
      expect.stringMatching(new RegExp(`^memory-vectors-0123456789ab-g2\\.hnsw\\.keys\\.${dead}\\.abc123\\.tmp is left over from a save that process ${dead} did not finish`)),
      expect.stringMatching(/^memory-vectors-0123456789ab-g2\.hnsw\.tmp is left over from a save by an earlier version of loci/),
      expect.stringMatching(/^vectors-0123456789ab-g2\.hnsw belongs to an embedder the store no longer uses/),
      expect.stringMatching(/^vectors-fedcba987654\.hnsw is a graph in an older layout/),
    ]);
    expect(graphs.find((item) => item.detail.includes(`${dead}`))?.fix).toMatch(/^Run `loci gc` to remove it once it is an hour old/);
  });

  it('reports the temporary files of a running process as saves in progress, not as files to delete', async () => {
    await writeIndex();
    const folder = join(root, '.loci');
    // The parent of this test's process: alive for as long as the test runs, and not this process.
    const live = process.ppid;
    writeFileSync(join(folder, `vectors-0123456789ab-g2.hnsw.${live}.abc123.tmp`), 'x');
    writeFileSync(join(folder, `segment-0123456789ab.seg.${live}.def456.part2.tmp`), 'x');
    const found = [...finding(check(), 'graph files'), ...finding(check(), 'segment files')];
    expect(found).toEqual([
      expect.objectContaining({ status: 'ok', detail: expect.stringMatching(new RegExp(`^vectors-0123456789ab-g2\\.hnsw\\.${live}\\.abc123\\.tmp is a save in progress by process ${live}`)) }),
      expect.objectContaining({ status: 'ok', detail: expect.stringMatching(new RegExp(`^segment-0123456789ab\\.seg\\.${live}\\.def456\\.part2\\.tmp is a save in progress`)) }),
    ]);
    expect(found.every((item) => item.fix === undefined)).toBe(true);
  });

  it('flags a graph file that does not match the size and checksum saved with its key list', async () => {
    const file = await writeIndex();
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = 'static:test' WHERE key = 'embedder'").run();
    db.close();
    const graph = join(root, '.loci', vectorGraphName('static:test'));
    writeFileSync(graph, Buffer.alloc(4096, 7));
    const sum = graphFileSum(graph);
    writeFileSync(`${graph}.keys`, Buffer.from(Int32Array.of(1, 2, 3, sum.bytes, 0, sum.crc32 | 0, SUM_MARK).buffer));
    expect(finding(check(), 'graph files')).toEqual([expect.objectContaining({ status: 'ok' })]);
    // One byte changed, the size kept.
    writeFileSync(graph, Buffer.concat([Buffer.alloc(4095, 7), Buffer.of(8)]));
    expect(finding(check(), 'graph files')).toEqual([
      expect.objectContaining({
        status: 'warning',
        detail: expect.stringMatching(/does not match the size and checksum saved with its key list.*the next `loci index`/),
        fix: `Run \`loci index\` (a store of documents: the next indexDocuments call): it deletes ${graph} and ${graph}.keys and builds the graph again.`,
      }),
    ]);
    // A key list saved before sums: nothing to check the graph against.
    writeFileSync(`${graph}.keys`, Buffer.from(Int32Array.of(1, 2, 3).buffer));
    expect(finding(check(), 'graph files')).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  it('flags a graph saved for another store (one deleted and made again in this folder)', async () => {
    const file = await writeIndex();
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = 'static:test' WHERE key = 'embedder'").run();
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('state:store-instance', 'this-store')").run();
    db.close();
    const graph = join(root, '.loci', vectorGraphName('static:test'));
    writeFileSync(graph, Buffer.alloc(4096, 7));
    const keys = (instance: string) => Buffer.from(Int32Array.of(1, 2, 3, ...keyListTrailer(graphFileSum(graph), instance)).buffer);
    writeFileSync(`${graph}.keys`, keys('this-store'));
    expect(finding(check(), 'graph files')).toEqual([expect.objectContaining({ status: 'ok' })]);
    writeFileSync(`${graph}.keys`, keys('another-store'));
    expect(finding(check(), 'graph files')).toEqual([
      expect.objectContaining({
        status: 'warning',
        detail: expect.stringMatching(/was saved for another store .*searches never read it; vector searches are exact until the next `loci index`/),
        fix: `Run \`loci index\` (a store of documents: the next indexDocuments call): it deletes ${graph} and ${graph}.keys and builds the graph again.`,
      }),
    ]);
  });

  it('warns about store files other users can read', async () => {
    const file = await writeIndex();
    chmodSync(join(root, '.loci'), 0o755);
    chmodSync(file, 0o644);
    expect(finding(check(), 'permissions')).toEqual([
      expect.objectContaining({ status: 'warning', fix: `chmod 700 ${join(root, '.loci')}` }),
      expect.objectContaining({ status: 'warning', fix: `chmod 600 ${file}` }), // and doctor left no -wal/-shm behind
    ]);
  });
});
