import { wrapPgError, type PgClient, type PgPool, type PostgresTarget } from './connection.js';
import { quoteIdentifier } from './pg-values.js';

/**
 * Statements and transactions against one namespace, with loci's error codes. Every write
 * transaction takes the namespace's advisory lock first (commits serialise across
 * processes and machines; ids grow in commit order) and bumps the namespace's write_seq.
 */
export class PgSession {
  private readonly s: string;

  constructor(
    readonly target: PostgresTarget,
    readonly pool: PgPool,
    /**
     * PGlite's socket server runs every connection on one session and keeps a connection's
     * messages together only inside a transaction (electric-sql/pglite#1046): parameterised
     * statements from two connections could interleave. Against PGlite every statement with
     * parameters therefore runs inside a transaction; real servers skip this.
     */
    private readonly pinStatements: boolean,
    /** Called when a write transaction rolls back (caches of what it wrote are void). */
    private readonly onRollback: () => void = () => undefined,
  ) {
    this.s = quoteIdentifier(target.schema);
  }

  async rows<Row>(sql: string, params: unknown[] = []): Promise<Row[]> {
    if (this.pinStatements && params.length > 0) return this.withClient(async (client) => (await client.query<Row>(sql, params)).rows, true);
    try {
      return (await this.pool.query<Row>(sql, params)).rows;
    } catch (error) {
      throw wrapPgError(error, this.target);
    }
  }

  /** Runs `action` on one pooled connection (inside a transaction when `pinned` and talking to PGlite). */
  async withClient<T>(action: (client: PgClient) => Promise<T>, pinned = false): Promise<T> {
    let client: PgClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw wrapPgError(error, this.target);
    }
    const transaction = pinned && this.pinStatements;
    try {
      if (transaction) await client.query('BEGIN');
      const result = await action(client);
      if (transaction) await client.query('COMMIT');
      return result;
    } catch (error) {
      if (transaction) await client.query('ROLLBACK').catch(() => undefined);
      throw wrapPgError(error, this.target);
    } finally {
      client.release();
    }
  }

  /** One transaction holding the namespace's advisory lock; every write bumps write_seq. */
  async write<T>(action: (client: PgClient) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.target.schema]);
        const result = await action(client);
        await client.query(`UPDATE ${this.s}.meta SET value = (value::bigint + 1)::text WHERE key = 'write_seq'`);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        this.onRollback();
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
