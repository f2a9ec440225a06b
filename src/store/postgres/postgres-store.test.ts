import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLociError } from '../../errors/index.js';
import { catalogEntry, chunk, describeStoreContract } from '../test-support/store-contract.js';
import { startTestPostgres, uniqueNamespace, type TestPostgres } from '../test-support/pglite-server.js';
import { openPostgresStore } from './postgres-store.js';
import { PG_SCHEMA_VERSION } from './schema.js';

const serverReady: Promise<TestPostgres> = startTestPostgres();
afterAll(async () => {
  await (await serverReady).stop();
}, 30_000);

async function dropNamespace(url: string, namespace: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "loci_${namespace}" CASCADE`);
  } finally {
    await client.end();
  }
}

describeStoreContract('postgres (pgvector, over the wire)', async () => {
  const { url } = await serverReady;
  const namespace = uniqueNamespace();
  const store = await openPostgresStore({ url: `${url}?namespace=${namespace}`, create: true });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await dropNamespace(url, namespace);
    },
  };
});

describe('postgres store: namespaces, safety and concurrent writers', () => {
  let url: string;
  beforeAll(async () => {
    url = (await serverReady).url;
  }, 60_000);

  it('keeps namespaces apart, and needs create to make one', async () => {
    const [a, b] = [uniqueNamespace('a'), uniqueNamespace('b')];
    await expect(openPostgresStore({ url: `${url}?namespace=${a}` })).rejects.toMatchObject({ code: 'INDEX_NOT_FOUND' });
    const first = await openPostgresStore({ url: `${url}?namespace=${a}`, create: true });
    const second = await openPostgresStore({ url: `${url}?namespace=${b}`, create: true });
    try {
      await first.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'only in the first namespace')] });
      expect((await first.counts()).files).toBe(1);
      expect((await second.counts()).files).toBe(0);
      expect(first.location).toContain(`#${a}`);
    } finally {
      await first.close();
      await second.close();
      await dropNamespace(url, a);
      await dropNamespace(url, b);
    }
  });

  it('upgrades a namespace of schema 1: deletions are counted and logged from then on, by any writer', async () => {
    const namespace = uniqueNamespace('upgrade');
    const schema = `"loci_${namespace}"`;
    const first = await openPostgresStore({ url: `${url}?namespace=${namespace}`, create: true });
    await first.writeFile({ entry: catalogEntry('a.ts'), chunks: [chunk('a.ts', 1, 'alpha'), chunk('a.ts', 3, 'beta')] });
    await first.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // As schema 1 left it: no counter, no trigger, no log.
      const ids = (await client.query(`SELECT id FROM ${schema}.chunks ORDER BY id`)).rows.map((row: { id: number }) => row.id);
      await client.query(`DROP TRIGGER chunk_deletions ON ${schema}.chunks; DROP FUNCTION ${schema}.count_chunk_deletions(); DROP TABLE ${schema}.chunk_tombstones;
        DELETE FROM ${schema}.meta WHERE key = 'chunk_deletions'; UPDATE ${schema}.meta SET value = '1' WHERE key = 'schema_version'`);
      const upgrades: unknown[] = [];
      const upgraded = await openPostgresStore({ url: `${url}?namespace=${namespace}`, onUpgrade: (upgrade) => upgrades.push(upgrade) });
      expect((await upgraded.getMeta()).schemaVersion).toBe(PG_SCHEMA_VERSION);
      expect(upgrades).toEqual([{ store: upgraded.location, from: 1, to: PG_SCHEMA_VERSION }]);
      await (await openPostgresStore({ url: `${url}?namespace=${namespace}`, onUpgrade: (upgrade) => upgrades.push(upgrade) })).close();
      expect(upgrades).toHaveLength(1); // once
      expect(await upgraded.chunkDeletions?.()).toBe(0);
      await client.query(`DELETE FROM ${schema}.chunks WHERE path = 'a.ts'`); // another writer
      expect(await upgraded.chunkDeletions?.()).toBe(2);
      expect([...((await upgraded.deletedRowIds?.(0, 2)) ?? [])]).toEqual(ids);
      await upgraded.close();
    } finally {
      await client.end();
      await dropNamespace(url, namespace);
    }
  });

  it('refuses a schema it did not create and bad namespaces, and never prints the password', async () => {
    const namespace = uniqueNamespace('foreign');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`CREATE SCHEMA "loci_${namespace}"; CREATE TABLE "loci_${namespace}".customers (id int)`);
    await client.end();
    try {
      await expect(openPostgresStore({ url: `${url}?namespace=${namespace}`, create: true })).rejects.toMatchObject({ code: 'STORE_FOREIGN' });
    } finally {
      await dropNamespace(url, namespace);
    }
    await expect(openPostgresStore({ url: `${url}?namespace=Robert'); DROP` })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const error = await openPostgresStore({ url: 'postgres://loci:s3cret-pass@127.0.0.1:9/db', create: true }).catch((caught: unknown) => caught);
    expect(isLociError(error) && error.code).toBe('STORE_UNREACHABLE');
    expect(String((error as Error).message)).not.toContain('s3cret-pass');
    expect(JSON.stringify((error as { details?: unknown }).details)).not.toContain('s3cret-pass');
  });

  it('lets four writers commit at once with no duplicate or lost rows', async () => {
    const namespace = uniqueNamespace('many');
    const stores = await Promise.all([0, 1, 2, 3].map(() => openPostgresStore({ url: `${url}?namespace=${namespace}`, create: true })));
    try {
      // Each writer writes 30 files, 10 of them shared with the next writer (same paths,
      // different text): shared paths must end with exactly one version's chunks.
      await Promise.all(
        stores.map(async (store, writer) => {
          for (let batch = 0; batch < 6; batch++) {
            const writes = Array.from({ length: 5 }, (_, index) => {
              const number = writer * 20 + batch * 5 + index;
              const path = `file-${number}.ts`;
              return { entry: catalogEntry(path), chunks: [chunk(path, 1, `writer ${writer} alpha ${number}`), chunk(path, 5, `writer ${writer} beta ${number}`)] };
            });
            await store.writeFiles(writes);
          }
        }),
      );
      const check = stores[0]!;
      const counts = await check.counts();
      expect(counts.files).toBe(3 * 20 + 30);
      expect(counts.chunks).toBe(counts.files * 2);
      const rows = await check.scanIndexRows({});
      const ids = rows.map((row) => row.rowId);
      expect(new Set(ids).size).toBe(ids.length);
      const perPath = new Map<string, number>();
      for (const row of rows) perPath.set(row.path, (perPath.get(row.path) ?? 0) + 1);
      expect([...perPath.values()].every((count) => count === 2)).toBe(true);
      // Lexicon ids are unique per term across writers.
      const lexicon = await check.readLexicon(0);
      expect(new Set(lexicon.map(([, term]) => term)).size).toBe(lexicon.length);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await dropNamespace(url, namespace);
    }
  }, 60_000);
});
