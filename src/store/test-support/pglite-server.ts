import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface TestPostgres {
  /** postgres:// URL of the server (no namespace). */
  url: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL for tests: LOCI_TEST_POSTGRES_URL when set (a real server with pgvector),
 * otherwise PGlite (Postgres compiled to WebAssembly) with its pgvector extension, served
 * on 127.0.0.1 over the Postgres wire protocol, so the real `pg` client, the same SQL and
 * the same pgvector code run as against a server.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.LOCI_TEST_POSTGRES_URL;
  if (external) return { url: external, stop: async () => undefined };
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 16 });
  await server.start();
  const port = (server as unknown as { port: number }).port;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

let counter = 0;
/** A namespace no other test uses (tests share one server). */
export function uniqueNamespace(prefix = 't'): string {
  counter++;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`.toLowerCase();
}
