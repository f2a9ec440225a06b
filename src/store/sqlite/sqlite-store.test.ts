import { statSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { catalogEntry, chunk, describeStoreContract } from '../test-support/store-contract.js';
import { CURRENT_SCHEMA_VERSION, TOMBSTONES_KEPT } from './schema.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from '../spec.js';

describeStoreContract('sqlite', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'loci-store-'));
  const store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
});

describe('sqlite store: refusing what is not ours', () => {
  const withFolder = async (run: (folder: string) => Promise<void>) => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-store-'));
    try {
      await run(folder);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  };

  it('refuses every call once its file is deleted or replaced under it, so no write is lost in an unlinked file', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      const store = openSqliteStore({ file, create: true });
      await store.writeState('kept', '1');
      await rm(file);
      await expect(store.writeState('lost', '1')).rejects.toMatchObject({ code: 'STORE_GONE', message: expect.stringContaining('was deleted') });
      await expect(store.readState('kept')).rejects.toMatchObject({ code: 'STORE_GONE' });
      await store.close();
      // Another store put in its place (a restore, a migrate) is not written through the old handle either.
      const first = openSqliteStore({ file, create: true });
      const other = join(folder, 'other.db');
      const replacement = openSqliteStore({ file: other, create: true });
      await replacement.close();
      await rename(other, file);
      await expect(first.writeState('lost', '1')).rejects.toMatchObject({ code: 'STORE_GONE', message: expect.stringContaining('was replaced') });
      await first.close();
      const reopened = openSqliteStore({ file });
      expect(await reopened.readState('lost')).toBeUndefined();
      await reopened.close();
    });
  });

  it('reports a missing index when not creating', async () => {
    await withFolder(async (folder) => {
      expect(() => openSqliteStore({ file: join(folder, 'index.db') })).toThrow(expect.objectContaining({ code: 'INDEX_NOT_FOUND' }));
    });
  });

  it('refuses a file that is not SQLite, and leaves it untouched', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      await writeFile(file, 'my precious notes\n'.repeat(10));
      expect(() => openSqliteStore({ file, create: true })).toThrow(expect.objectContaining({ code: 'STORE_FOREIGN' }));
      expect(await readFile(file, 'utf8')).toBe('my precious notes\n'.repeat(10));
    });
  });

  it('refuses an SQLite database with foreign tables', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'app.db');
      const db = new Database(file);
      db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')");
      db.close();
      expect(() => openSqliteStore({ file, create: true })).toThrow(expect.objectContaining({ code: 'STORE_FOREIGN' }));
      const check = new Database(file);
      expect(check.prepare('SELECT name FROM users').pluck().all()).toEqual(['ada']);
      check.close();
    });
  });

  it('refuses a store from a newer schema', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      await openSqliteStore({ file, create: true }).close();
      const db = new Database(file);
      db.prepare("UPDATE meta SET value = '999' WHERE key = 'schema_version'").run();
      db.close();
      expect(() => openSqliteStore({ file })).toThrow(expect.objectContaining({ code: 'STORE_SCHEMA_TOO_NEW' }));
    });
  });

  it('moves a schema-3 store to the deletion log, which then names the rows deleted after it', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      const first = openSqliteStore({ file, create: true });
      await first.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'alpha'), chunk('a.ts', 3, 'beta')] });
      await first.close();
      // What schema 3 had: the count's trigger alone, no log.
      const old = new Database(file);
      old.exec(`DROP TRIGGER chunk_deletions; DROP TABLE chunk_tombstones;
        CREATE TRIGGER chunk_deletions AFTER DELETE ON chunks BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunk_deletions'; END;
        UPDATE meta SET value = '3' WHERE key = 'schema_version';`);
      old.exec("DELETE FROM chunks WHERE path = 'a.ts' AND start_line = 1");
      old.close();
      const store = openSqliteStore({ file });
      try {
        expect(await store.chunkDeletions?.()).toBe(1);
        // Deleted before the log existed: not known.
        expect(await store.deletedRowIds?.(0, 1)).toBeUndefined();
        const [kept] = await store.scanIndexRows({});
        await store.deleteFile('a.ts');
        expect(await store.chunkDeletions?.()).toBe(2);
        expect([...((await store.deletedRowIds?.(1, 2)) ?? [])]).toEqual([kept?.rowId]);
      } finally {
        await store.close();
      }
      const db = new Database(file);
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(String(CURRENT_SCHEMA_VERSION));
      db.close();
    });
  });

  it("moves a schema-4 store's vectors to a table in write order, keyed by a unique index, every vector kept", async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      const first = openSqliteStore({ file, create: true });
      await first.setEmbedder('static:test@2', 2);
      await first.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'alpha'), chunk('a.ts', 3, 'beta')] });
      await first.close();
      // What schema 4 had: the vectors in a WITHOUT ROWID table keyed by (embedder, content_hash).
      const old = new Database(file);
      old.exec(`DROP TABLE embeddings;
        CREATE TABLE embeddings (embedder TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (embedder, content_hash)) WITHOUT ROWID;
        UPDATE meta SET value = '4' WHERE key = 'schema_version';`);
      const insert = old.prepare('INSERT INTO embeddings VALUES (?, ?, ?, ?)');
      const hashes = (old.prepare('SELECT content_hash FROM chunks ORDER BY id').pluck().all() as string[]).concat('unreferenced');
      hashes.forEach((hash, index) => insert.run('static:test@2', hash, Buffer.from(Float32Array.of(index, 1).buffer), index));
      old.close();
      const upgrades: unknown[] = [];
      const store = openSqliteStore({
        file,
        onUpgrade: (upgrade) => {
          upgrades.push(upgrade);
          throw new Error('a listener that throws does not stop the open');
        },
      });
      expect(upgrades).toEqual([{ store: file, from: 4, to: CURRENT_SCHEMA_VERSION }]);
      const again = openSqliteStore({ file, onUpgrade: (upgrade) => upgrades.push(upgrade) });
      await again.close();
      expect(upgrades).toHaveLength(1); // once
      try {
        const found = await store.getCachedVectors('static:test@2', hashes);
        expect(hashes.map((hash) => [...(found.get(hash) ?? [])])).toEqual(hashes.map((_, index) => [index, 1]));
        expect((await store.scanIndexRows({ embedderId: 'static:test@2' })).map((row) => [...(row.vector ?? [])])).toEqual([
          [0, 1],
          [1, 1],
        ]);
        // The unique key still turns a second write of a vector into nothing.
        await store.putCachedVectors('static:test@2', new Map([[hashes[0] as string, Float32Array.of(9, 9)]]));
        expect([...((await store.getCachedVectors('static:test@2', [hashes[0] as string])).get(hashes[0] as string) ?? [])]).toEqual([0, 1]);
        expect((await store.collectGarbage({ keepUnreferenced: 0 })).removedVectors).toBe(1);
      } finally {
        await store.close();
      }
      const db = new Database(file);
      const table = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'embeddings'").pluck().get() as string;
      expect(table).not.toMatch(/WITHOUT ROWID/i);
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'embeddings_by_key'").pluck().get()).toBe(1);
      expect(db.prepare('SELECT count(*) FROM embeddings').pluck().get()).toBe(2);
      db.close();
    });
  });

  it("keeps the deletion log to its newest TOMBSTONES_KEPT: trimmed by an indexing open and by a writer as it deletes, never by a search's open", async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      await openSqliteStore({ file, create: true }).close();
      const fill = (extra: number) => {
        const db = new Database(file);
        const insert = db.prepare('INSERT INTO chunk_tombstones (seq, row_id) VALUES (?, ?)');
        db.transaction(() => {
          for (let seq = 1; seq <= TOMBSTONES_KEPT + extra; seq++) insert.run(seq, seq);
        })();
        db.prepare("UPDATE meta SET value = ? WHERE key = 'chunk_deletions'").run(String(TOMBSTONES_KEPT + extra));
        db.close();
      };
      const logged = () => {
        const db = new Database(file, { readonly: true });
        const count = db.prepare('SELECT count(*) FROM chunk_tombstones').pluck().get();
        db.close();
        return count;
      };
      fill(7);
      await openSqliteStore({ file }).close(); // a search's open: nothing written
      expect(logged()).toBe(TOMBSTONES_KEPT + 7);
      const store = openSqliteStore({ file, create: true });
      try {
        expect(logged()).toBe(TOMBSTONES_KEPT);
        expect(await store.deletedRowIds?.(6, 8)).toBeUndefined();
        expect([...((await store.deletedRowIds?.(7, 9)) ?? [])]).toEqual([8, 9]);
        // A writer deleting thousands of rows trims as it goes.
        await store.writeFile({ entry: catalogEntry('big.ts'), chunks: Array.from({ length: 4_200 }, (_, index) => chunk('big.ts', index + 1, `line ${index}`)) });
        await store.deleteFile('big.ts');
        expect(logged()).toBeLessThanOrEqual(TOMBSTONES_KEPT + 4_200 - 4_096);
        const deletions = (await store.chunkDeletions?.()) as number;
        expect((await store.deletedRowIds?.(deletions - 4_200, deletions))?.length).toBe(4_200);
      } finally {
        await store.close();
      }
    });
  });

  it('reports a damaged database as corrupt instead of rebuilding it', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      const store = openSqliteStore({ file, create: true });
      await store.close();
      const bytes = await readFile(file);
      // Keep the header, garble every page after the first.
      for (let offset = 4096; offset < bytes.length; offset++) bytes[offset] = (offset * 7) & 0xff;
      bytes.fill(0xab, 100, 4096);
      await writeFile(file, bytes);
      let caught: unknown;
      try {
        const reopened = openSqliteStore({ file });
        await reopened.listCatalog();
        await reopened.scanIndexRows({ limit: 1 });
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: expect.stringMatching(/STORE_CORRUPT|STORE_FOREIGN/) });
    });
  });
});

/** Two connections on one new store (the first created it), closed and removed after `run`. */
async function withTwoConnections(run: (first: Store, second: Store) => Promise<void>): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'loci-store-'));
  const file = join(folder, 'index.db');
  const first = openSqliteStore({ file, create: true });
  const second = openSqliteStore({ file });
  try {
    await run(first, second);
  } finally {
    await second.close();
    await first.close();
    await rm(folder, { recursive: true, force: true });
  }
}

describe('sqlite store: quick check on a long-lived connection', () => {
  it('passes after another connection indexed (a server re-indexing in its worker)', async () => {
    await withTwoConnections(async (server, worker) => {
      await worker.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'export function fuseScores() { return lexical + vector; }')] });
      await server.quickCheck!();
      await worker.writeFile({ entry: catalogEntry('b.ts'), chunks: [chunk('b.ts', 1, 'export function rankFiles() { return files; }')] });
      await worker.deleteFile('a.ts');
      // Before the fix: "fts5: checksum mismatch for table chunk_fts" on a sound file.
      await server.quickCheck!();
    });
  });
});

describe('sqlite store: kept catalog entries', () => {
  it("sees another connection's commits (another process indexing the same store)", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-store-'));
    const file = join(folder, 'index.db');
    const reader = openSqliteStore({ file, create: true });
    const writer = openSqliteStore({ file });
    try {
      await writer.writeFile({ entry: catalogEntry('a.ts'), chunks: [] });
      expect((await reader.getCatalogEntries(['a.ts', 'b.ts'])).get('a.ts')).toMatchObject({ size: 100 });
      await writer.touchFile('a.ts', 5, 6);
      await writer.writeFile({ entry: catalogEntry('b.ts'), chunks: [] });
      const seen = await reader.getCatalogEntries(['a.ts', 'b.ts']);
      expect(seen.get('a.ts')).toMatchObject({ size: 5, mtimeMs: 6 });
      expect(seen.has('b.ts')).toBe(true);
    } finally {
      await writer.close();
      await reader.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('sqlite store: files private to their owner', () => {
  it('creates its folder 0700 and the database, -wal and -shm files 0600', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'loci-store-'));
    const file = join(parent, 'new-store', 'index.db');
    const store = openSqliteStore({ file, create: true });
    try {
      await store.writeState('probe', 'x'); // the -wal and -shm files exist while a connection is open
      const mode = (path: string) => statSync(path).mode & 0o777;
      expect(mode(join(parent, 'new-store'))).toBe(0o700);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path)).toBe(0o600);
    } finally {
      await store.close();
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('sqlite store: bulk writes', () => {
  it('checkpoints its log far less often during a bulk run, and everything is readable by another connection after', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-store-'));
    try {
      const walBytes = async (bulk: boolean) => {
        const file = join(folder, `${bulk ? 'bulk' : 'plain'}.db`);
        const store = openSqliteStore({ file, create: true });
        if (bulk) await store.bulkWrites?.(true);
        // Six commits of several MB each: each one past SQLite's 4 MB checkpoint point.
        for (let group = 0; group < 6; group++) {
          const writes = Array.from({ length: 30 }, (_, index) => {
            const path = `g${group}/f${index}.ts`;
            const chunks = Array.from({ length: 50 }, (_, part) => chunk(path, part * 10 + 1, `${path} ${part} ${'x'.repeat(2000)}`));
            return { entry: catalogEntry(path, { chunkCount: 50 }), chunks };
          });
          await store.writeFiles(writes);
        }
        const size = statSync(`${file}-wal`).size;
        if (bulk) await store.bulkWrites?.(false);
        const reader = new Database(file, { readonly: true });
        expect(reader.prepare('SELECT count(*) FROM chunks').pluck().get()).toBe(9000);
        reader.close();
        await store.close();
        return size;
      };
      const plain = await walBytes(false);
      const bulk = await walBytes(true);
      // Checkpointed at every commit, the log is reused from its start; in a bulk run it grows.
      expect(bulk).toBeGreaterThan(2.5 * plain);
      // Two runs on one connection: bulk mode lasts until both have ended.
      const shared = openSqliteStore({ file: join(folder, 'shared.db'), create: true });
      const pages = () => (shared as unknown as { db: Database.Database }).db.pragma('wal_autocheckpoint', { simple: true });
      await shared.bulkWrites?.(true);
      await shared.bulkWrites?.(true);
      await shared.bulkWrites?.(false);
      expect(pages()).toBe(65_536);
      await shared.bulkWrites?.(false);
      expect(pages()).toBe(1000);
      await shared.close();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('sqlite store: lexicon ids', () => {
  it('a small write looks terms up one by one, a big one reads the whole lexicon; two writers give every term one id and each row the ids of its own words', async () => {
    await withTwoConnections(async (a, b) => {
      const words = (from: number, count: number) => Array.from({ length: count }, (_, index) => `word${from + index}x`);
      // 30,000 new words in one write: past the one-by-one lookups, the lexicon is read mid-write.
      await a.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, words(0, 30_000).join(' '))] });
      // The other writer, one by one: 10 words known, 10 new.
      await b.writeFile({ entry: catalogEntry('b.ts'), chunks: [chunk('b.ts', 1, words(29_990, 20).join(' '))] });
      // The first again (whole lexicon in memory): 5 words the other added since, 5 new.
      await a.writeFile({ entry: catalogEntry('c.ts'), chunks: [chunk('c.ts', 1, words(30_005, 10).join(' '))] });
      const lexicon = await a.readLexicon(0);
      const termOf = new Map(lexicon);
      expect(new Set(lexicon.map(([, term]) => term)).size).toBe(lexicon.length);
      const rows = await a.scanIndexRows({});
      const wholeWords = (row: (typeof rows)[number]) => [...row.terms.termIds].map((id) => termOf.get(id) ?? `missing ${id}`).filter((term) => /^word\d+x$/.test(term));
      expect(rows.map((row) => [row.path, wholeWords(row).length])).toEqual([
        ['a.ts', 30_000],
        ['b.ts', 20],
        ['c.ts', 10],
      ]);
      expect(new Set(wholeWords(rows[1] as (typeof rows)[number]))).toEqual(new Set(words(29_990, 20)));
      expect(new Set(wholeWords(rows[2] as (typeof rows)[number]))).toEqual(new Set(words(30_005, 10)));
    });
  });
});
