import { LociError } from '../../errors/index.js';
import { LOCI_VERSION } from '../../version.js';
import type { PgPool, PostgresTarget } from './connection.js';
import { quoteIdentifier } from './pg-values.js';
import { PG_SCHEMA_VERSION, PG_STORE_FORMAT, pgMigrations } from './schema.js';
import type { StoreUpgradeListener } from '../spec.js';
import { tellUpgrade } from '../store-upgrade.js';

/** One lock key for creating extensions and schemas, across every namespace. */
const SETUP_LOCK = 'loci:setup';

/**
 * Makes sure the namespace's schema exists at the current version: creates it (and the
 * vector extension) when `create`, migrates an older one, and refuses a schema that loci
 * did not create or that a newer loci wrote. All under an advisory lock, so several
 * processes opening a new namespace at once create it exactly once.
 */
export interface OpenNamespaceOptions {
  create: boolean;
  onUpgrade?: StoreUpgradeListener;
}

export async function openNamespace(pool: PgPool, target: PostgresTarget, options: OpenNamespaceOptions): Promise<void> {
  const schema = quoteIdentifier(target.schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [SETUP_LOCK]);
      const tables = (await client.query<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1', [target.schema])).rows.map((row) => row.name);
      if (tables.length === 0) {
        if (!options.create) {
          throw new LociError('INDEX_NOT_FOUND', `No loci index in namespace "${target.namespace}" at ${target.display}.`, {
            details: { store: target.display, namespace: target.namespace },
          });
        }
        await ensureVectorExtension(client, target);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        for (const migration of pgMigrations) await client.query(migration(target.schema));
        const meta: Array<[string, string]> = [
          ['format', PG_STORE_FORMAT],
          ['schema_version', String(PG_SCHEMA_VERSION)],
          ['created_at', String(Date.now())],
          ['created_by', `loci ${LOCI_VERSION}`],
          ['embedder', 'none'],
          ['dimensions', '0'],
          ['write_seq', '0'],
        ];
        await client.query(`INSERT INTO ${schema}.meta (key, value) SELECT * FROM unnest($1::text[], $2::text[])`, [meta.map((row) => row[0]), meta.map((row) => row[1])]);
      } else {
        await checkExisting(client, target, tables, options.onUpgrade);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}

async function ensureVectorExtension(client: Awaited<ReturnType<PgPool['connect']>>, target: PostgresTarget): Promise<void> {
  const installed = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
  if (installed.rows.length > 0) return;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (error) {
    throw new LociError('NOT_SUPPORTED', `PostgreSQL at ${target.display} has no pgvector extension, and loci could not create it (${(error as Error).message}).`, {
      cause: error,
      hint: 'Install pgvector on the server and run CREATE EXTENSION vector; as a database owner (managed services: enable "vector").',
    });
  }
}

async function checkExisting(client: Awaited<ReturnType<PgPool['connect']>>, target: PostgresTarget, tables: string[], onUpgrade: StoreUpgradeListener | undefined): Promise<void> {
  const schema = quoteIdentifier(target.schema);
  if (!tables.includes('meta')) {
    throw new LociError('STORE_FOREIGN', `Schema ${target.schema} at ${target.display} holds tables loci did not create (${tables.slice(0, 5).join(', ')}).`, {
      details: { store: target.display, schema: target.schema, tables },
      hint: 'Pick another namespace (?namespace=...).',
    });
  }
  const meta = new Map((await client.query<{ key: string; value: string }>(`SELECT key, value FROM ${schema}.meta`)).rows.map((row) => [row.key, row.value]));
  if (meta.get('format') !== PG_STORE_FORMAT) {
    throw new LociError('STORE_FOREIGN', `Schema ${target.schema} at ${target.display} has a meta table but is not a loci store.`, { hint: 'Pick another namespace (?namespace=...).' });
  }
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version < 1) {
    throw new LociError('STORE_CORRUPT', `Schema ${target.schema} has an unreadable schema version (${meta.get('schema_version')}).`);
  }
  if (version > PG_SCHEMA_VERSION) {
    throw new LociError('STORE_SCHEMA_TOO_NEW', `Namespace "${target.namespace}" has schema version ${version}; this loci (${LOCI_VERSION}) reads up to ${PG_SCHEMA_VERSION}.`, {
      details: { version, supported: PG_SCHEMA_VERSION },
    });
  }
  if (version < PG_SCHEMA_VERSION) tellUpgrade(onUpgrade, { store: `${target.display}#${target.namespace}`, from: version, to: PG_SCHEMA_VERSION });
  for (let step = version; step < PG_SCHEMA_VERSION; step++) await client.query((pgMigrations[step] as (schema: string) => string)(target.schema));
  if (version < PG_SCHEMA_VERSION) await client.query(`UPDATE ${schema}.meta SET value = $1 WHERE key = 'schema_version'`, [String(PG_SCHEMA_VERSION)]);
}
