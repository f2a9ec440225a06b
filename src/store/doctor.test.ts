import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkStore, type StoreReport } from './doctor.js';
import { resolveStoreLocation } from './location.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
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

  it('finds a full-text index that no longer matches its content (and so does quick_check on open)', async () => {
    const file = await writeIndex();
    const reader = new Database(file, { readonly: true });
    const ftsPage = reader.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'chunk_fts_data'").pluck().get() as number;
    const pageSize = reader.pragma('page_size', { simple: true }) as number;
    reader.close();
    // One byte of an indexed term, inside the full-text index's own page: pages and b-trees stay well-formed.
    const bytes = readFileSync(file);
    const term = bytes.indexOf(Buffer.from('epsilon'), (ftsPage - 1) * pageSize);
    expect(term).toBeGreaterThan(0);
    expect(term).toBeLessThan(ftsPage * pageSize);
    bytes.write('z', term + 6);
    writeFileSync(file, bytes);
    const report = check();
    expect(report.healthy).toBe(false);
    expect(finding(report, 'full-text index')[0]).toMatchObject({ status: 'error', detail: expect.stringMatching(/checksum mismatch/), fix: expect.stringMatching(/run `loci index` again/) });
    expect(() => openSqliteStore({ file, create: true })).toThrow(expect.objectContaining({ code: 'STORE_CORRUPT', message: expect.stringMatching(/quick_check: .*checksum mismatch/) }));
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
    writeFileSync(join(folder, 'vectors-0123456789ab.hnsw'), 'x');
    writeFileSync(join(folder, 'memory-vectors-0123456789ab.hnsw.tmp'), 'x');
    const graphs = finding(check(), 'graph files');
    expect(graphs.map((item) => item.detail).sort()).toEqual([
      expect.stringMatching(/^memory-vectors-0123456789ab\.hnsw\.tmp is left over from an interrupted save/),
      expect.stringMatching(/^vectors-0123456789ab\.hnsw belongs to an embedder the store no longer uses/),
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
