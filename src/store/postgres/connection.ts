import { LociError } from '../../errors/index.js';

/** The part of `pg` loci uses, typed here so `pg` stays a lazily imported dependency. */
export interface PgQueryResult<Row> {
  rows: Row[];
  rowCount: number | null;
}
export interface PgClient {
  query<Row = Record<string, unknown>>(text: string | { text: string; values?: unknown[]; rowMode?: 'array' }, values?: unknown[]): Promise<PgQueryResult<Row>>;
  release(error?: Error | boolean): void;
}
export interface PgPool {
  query<Row = Record<string, unknown>>(text: string | { text: string; values?: unknown[]; rowMode?: 'array' }, values?: unknown[]): Promise<PgQueryResult<Row>>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'connect', listener: (client: PgClient) => void): unknown;
}

export interface PostgresTarget {
  /** The connection string handed to `pg`, without loci's own parameters. */
  connectionString: string;
  /** The namespace (one repository, agent or team index); its tables live in schema `loci_<namespace>`. */
  namespace: string;
  schema: string;
  /** For messages: the URL without its password. */
  display: string;
  poolSize: number;
  /** hnsw.ef_search for vector queries (`?ef_search=`, default 200): higher finds more true neighbours, slower. */
  efSearch: number;
}

const NAMESPACE = /^[a-z0-9_]{1,48}$/;

/**
 * Reads a postgres:// URL. loci's own query parameters are `namespace` (default `default`),
 * `pool` (connections, default 4) and `ef_search` (default 200); everything else (sslmode, …) goes to `pg`. The
 * password comes from the URL or from PGPASSWORD in the environment, never from config files.
 */
export function parsePostgresUrl(url: string, options: { namespaceSuffix?: string } = {}): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LociError('INVALID_ARGUMENT', 'The PostgreSQL store URL cannot be parsed.', {
      hint: 'Use postgres://user@host:5432/database?namespace=myrepo (the password in PGPASSWORD).',
    });
  }
  const namespace = (parsed.searchParams.get('namespace') ?? 'default').toLowerCase();
  if (!NAMESPACE.test(namespace)) {
    throw new LociError('INVALID_ARGUMENT', `Namespace "${namespace}" is not valid: use 1–48 of a-z, 0-9 and _.`, {
      hint: 'For example ?namespace=acme_api.',
    });
  }
  const poolText = parsed.searchParams.get('pool');
  const poolSize = poolText === null ? 4 : Number(poolText);
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 64) {
    throw new LociError('INVALID_ARGUMENT', `pool=${poolText} is not valid: use a whole number of connections from 1 to 64.`);
  }
  const efText = parsed.searchParams.get('ef_search');
  const efSearch = efText === null ? 200 : Number(efText);
  if (!Number.isInteger(efSearch) || efSearch < 10 || efSearch > 1000) {
    throw new LociError('INVALID_ARGUMENT', `ef_search=${efText} is not valid: use a whole number from 10 to 1000.`);
  }
  parsed.searchParams.delete('namespace');
  parsed.searchParams.delete('pool');
  parsed.searchParams.delete('ef_search');
  const display = new URL(parsed.toString());
  if (display.password) display.password = '***';
  // `pg` also takes a password from the query (?password=, ?sslpassword=): never printed either.
  for (const key of [...display.searchParams.keys()]) if (/pass/i.test(key)) display.searchParams.set(key, '***');
  const fullNamespace = options.namespaceSuffix ? `${namespace}${options.namespaceSuffix}` : namespace;
  return { connectionString: parsed.toString(), namespace: fullNamespace, schema: `loci_${fullNamespace}`, display: display.toString(), poolSize, efSearch };
}

export async function createPool(target: PostgresTarget): Promise<PgPool> {
  let pg: { default: { Pool: new (config: Record<string, unknown>) => PgPool } };
  try {
    pg = (await import('pg')) as unknown as typeof pg;
  } catch (error) {
    throw new LociError('NOT_SUPPORTED', 'The PostgreSQL store needs the `pg` package, which is not installed.', {
      cause: error,
      hint: 'Run npm install pg.',
    });
  }
  const pool = new pg.default.Pool({ connectionString: target.connectionString, max: target.poolSize, idleTimeoutMillis: 10_000 });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return pool;
}

/** Maps `pg` errors onto loci codes: unreachable, refused credentials, missing pgvector. */
export function wrapPgError(error: unknown, target: PostgresTarget): LociError {
  if (error instanceof LociError) return error;
  const code = String((error as { code?: string }).code ?? '');
  const message = (error as Error).message ?? String(error);
  const details = { store: target.display, namespace: target.namespace, ...(code ? { sqlState: code } : {}) };
  if (['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', '57P03'].includes(code) || /terminated unexpectedly|Connection terminated/i.test(message)) {
    return new LociError('STORE_UNREACHABLE', `Cannot reach PostgreSQL at ${target.display} (${message}).`, { cause: error, details });
  }
  if (code === '28P01' || code === '28000') {
    return new LociError('STORE_AUTH', `PostgreSQL at ${target.display} refused the credentials (${message}).`, { cause: error, details });
  }
  if (code === '3D000') {
    return new LociError('STORE_UNREACHABLE', `The database in ${target.display} does not exist (${message}).`, { cause: error, details, hint: 'Create it (createdb) or fix the URL.' });
  }
  if (code === '40P01' || code === '55P03' || code === '40001') {
    return new LociError('STORE_BUSY', `PostgreSQL store ${target.display} is busy (${message}).`, { cause: error, details });
  }
  return new LociError('INTERNAL', `PostgreSQL store error at ${target.display} (${target.namespace}): ${message}`, { cause: error, details });
}
