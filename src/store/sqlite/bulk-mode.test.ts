import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { catalogEntry, chunk } from '../test-support/store-contract.js';
import { DROP_CONTENT_INDEX_BELOW, startBulk } from './bulk-mode.js';
import { openSqliteStore } from './sqlite-store.js';

const EMBEDDER = 'static:test@2';

async function withFolder(run: (folder: string) => Promise<void>): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'loci-bulk-'));
  try {
    await run(folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function hasContentIndex(file: string): boolean {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'chunks_by_content'").pluck().get() === 1;
  } finally {
    db.close();
  }
}

/** Ten files of two chunks, each chunk's vector cached, and one vector no chunk uses. */
async function fill(store: ReturnType<typeof openSqliteStore>): Promise<void> {
  await store.setEmbedder(EMBEDDER, 2);
  const writes = Array.from({ length: 10 }, (_, index) => {
    const path = `f${index}.ts`;
    return { entry: catalogEntry(path, { chunkCount: 2 }), chunks: [chunk(path, 1, `alpha ${index}`), chunk(path, 5, `beta ${index}`)] };
  });
  await store.writeFiles(writes);
  const hashes = writes.flatMap((write) => write.chunks.map((one) => one.contentHash));
  await store.putCachedVectors(EMBEDDER, new Map([...hashes, 'nobody uses this'].map((hash, index) => [hash, Float32Array.of(index, 1)])));
}

describe('SQLite bulk runs and the content-hash index', () => {
  it('a bulk run on a small store writes without the index and builds it again when it ends', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      const store = openSqliteStore({ file, create: true });
      try {
        await store.bulkWrites?.(true);
        expect(hasContentIndex(file)).toBe(false);
        await fill(store);
        await store.bulkWrites?.(false);
        expect(hasContentIndex(file)).toBe(true);
        expect((await store.collectGarbage({ keepUnreferenced: 0 })).removedVectors).toBe(1);
        expect((await store.counts()).vectors).toBe(20);
      } finally {
        await store.close();
      }
    });
  });

  it('a run killed in bulk mode leaves no index; the next collection of vectors builds it and removes only the unused one', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      const killed = openSqliteStore({ file, create: true });
      await killed.bulkWrites?.(true);
      await fill(killed);
      await killed.close(); // no bulkWrites(false): what a kill -9 leaves
      expect(hasContentIndex(file)).toBe(false);
      const next = openSqliteStore({ file, create: true });
      try {
        expect((await next.collectGarbage({ keepUnreferenced: 0 })).removedVectors).toBe(1);
        expect(hasContentIndex(file)).toBe(true);
        expect((await next.counts()).vectors).toBe(20);
      } finally {
        await next.close();
      }
    });
  });

  it("another process's collection during a bulk run builds the index first and keeps every vector in use", async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      const writer = openSqliteStore({ file, create: true });
      const other = openSqliteStore({ file });
      try {
        await writer.bulkWrites?.(true);
        await fill(writer);
        expect(hasContentIndex(file)).toBe(false);
        expect((await other.collectGarbage({ keepUnreferenced: 0 })).removedVectors).toBe(1);
        expect(hasContentIndex(file)).toBe(true);
        await writer.writeFile({ entry: catalogEntry('late.ts'), chunks: [chunk('late.ts', 1, 'gamma')] });
        await writer.bulkWrites?.(false); // the index is there already: nothing to build
        expect(hasContentIndex(file)).toBe(true);
        expect((await writer.counts()).vectors).toBe(20);
      } finally {
        await other.close();
        await writer.close();
      }
    });
  });

  it('a store already past the size keeps its index through a bulk run', async () => {
    await withFolder(async (folder) => {
      const file = join(folder, 'index.db');
      await openSqliteStore({ file, create: true }).close();
      const db = new Database(file);
      try {
        startBulk(db, DROP_CONTENT_INDEX_BELOW);
        expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'chunks_by_content'").pluck().get()).toBe(1);
        startBulk(db, DROP_CONTENT_INDEX_BELOW - 1);
        expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'chunks_by_content'").pluck().get()).toBe(0);
      } finally {
        db.close();
      }
    });
  });
});
