// `loci/postgres`: the PostgreSQL + pgvector store, opened directly (createLoci also opens it
// from a postgres:// URL in `store`). Needs the `pg` package, installed with loci.
export { openPostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export type { Store } from '../spec.js';
