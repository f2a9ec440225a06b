import { quoteIdentifier as q } from './pg-values.js';

export const PG_STORE_FORMAT = 'loci-store';

/**
 * Ordered migrations of one namespace's schema; index i moves it from version i to i + 1.
 * A new version appends a migration and never edits an old one. Each runs inside the
 * transaction that holds the namespace's advisory lock.
 */
export const pgMigrations: ReadonlyArray<(schema: string) => string> = [
  (schema) => {
    const s = q(schema);
    return `
      CREATE TABLE ${s}.meta (key text PRIMARY KEY, value text NOT NULL);

      -- COLLATE "C": paths sort and compare byte-wise, as in every other store.
      CREATE TABLE ${s}.files (
        path text COLLATE "C" PRIMARY KEY,
        size bigint NOT NULL,
        mtime_ms double precision NOT NULL,
        content_hash text NOT NULL,
        language text NOT NULL,
        chunker text NOT NULL,
        embedder text NOT NULL,
        chunk_count integer NOT NULL,
        indexed_at bigint NOT NULL,
        attributes text
      );

      -- Identity ids are never reused, and writers commit in id order (they hold the
      -- namespace's advisory lock), so in-memory indexes can catch up by "id > last seen".
      -- tsv holds loci's code-aware tokens, weighted by field (A path, B symbols, C heading,
      -- D body); terms holds the per-field term statistics the in-memory BM25 index reads.
      CREATE TABLE ${s}.chunks (
        id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        chunk_id text NOT NULL,
        content_hash text NOT NULL,
        path text COLLATE "C" NOT NULL,
        start_line integer NOT NULL,
        end_line integer NOT NULL,
        language text NOT NULL,
        kind text NOT NULL,
        symbol text,
        symbols text NOT NULL DEFAULT '[]',
        heading_path text NOT NULL DEFAULT '[]',
        text text NOT NULL,
        tsv tsvector NOT NULL,
        terms bytea NOT NULL
      );
      CREATE INDEX chunks_by_path ON ${s}.chunks (path);
      CREATE INDEX chunks_by_content ON ${s}.chunks (content_hash);
      CREATE INDEX chunks_fts ON ${s}.chunks USING gin (tsv);

      CREATE TABLE ${s}.lexicon (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, term text NOT NULL UNIQUE);

      CREATE TABLE ${s}.symbol_names (
        name text NOT NULL,
        chunk integer NOT NULL REFERENCES ${s}.chunks (id) ON DELETE CASCADE
      );
      CREATE INDEX symbol_names_by_name ON ${s}.symbol_names (name);
      CREATE INDEX symbol_names_by_chunk ON ${s}.symbol_names (chunk);

      -- The embedding cache doubles as the vector table (chunks join it by content hash).
      -- The column has no fixed dimension, since embedders differ; each embedder gets a
      -- partial HNSW index on vector::vector(d) when it becomes the namespace's embedder.
      CREATE TABLE ${s}.embeddings (
        embedder text NOT NULL,
        content_hash text NOT NULL,
        vector vector NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (embedder, content_hash)
      );
    `;
  },
  // 2: a count of deleted chunk rows, moved by the database in the deleting statement
  // (whoever deletes), so a reader can tell nothing was deleted without counting every row.
  (schema) => {
    const s = q(schema);
    return `
      INSERT INTO ${s}.meta (key, value) VALUES ('chunk_deletions', '0') ON CONFLICT (key) DO NOTHING;
      CREATE FUNCTION ${s}.count_chunk_deletions() RETURNS trigger LANGUAGE plpgsql AS $body$
      BEGIN
        UPDATE ${s}.meta SET value = (value::bigint + (SELECT count(*) FROM gone))::text WHERE key = 'chunk_deletions';
        RETURN NULL;
      END
      $body$;
      CREATE TRIGGER chunk_deletions AFTER DELETE ON ${s}.chunks
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_chunk_deletions();
    `;
  },
  // 3: which chunk rows were deleted, logged by the same trigger under the count each moved it
  // to (the meta row locked first, so concurrent deleters take turns), so a reader that saw
  // count D reads the ids deleted after it instead of every live id; the newest
  // 100,000 are kept (PG_TOMBSTONES_KEPT; a reader further behind compares every id, as before).
  (schema) => {
    const s = q(schema);
    return `
      CREATE TABLE IF NOT EXISTS ${s}.chunk_tombstones (seq bigint PRIMARY KEY, row_id integer NOT NULL);
      CREATE OR REPLACE FUNCTION ${s}.count_chunk_deletions() RETURNS trigger LANGUAGE plpgsql AS $body$
      DECLARE
        before bigint;
        moved bigint;
      BEGIN
        SELECT value::bigint INTO before FROM ${s}.meta WHERE key = 'chunk_deletions' FOR UPDATE;
        SELECT count(*) INTO moved FROM gone;
        INSERT INTO ${s}.chunk_tombstones (seq, row_id)
          SELECT before + row_number() OVER (ORDER BY id), id FROM gone
          ON CONFLICT (seq) DO UPDATE SET row_id = EXCLUDED.row_id;
        UPDATE ${s}.meta SET value = (before + moved)::text WHERE key = 'chunk_deletions';
        DELETE FROM ${s}.chunk_tombstones WHERE seq <= before + moved - ${PG_TOMBSTONES_KEPT};
        RETURN NULL;
      END
      $body$;
    `;
  },
];

/** Deleted row ids the log keeps (the newest). */
export const PG_TOMBSTONES_KEPT = 100_000;

export const PG_SCHEMA_VERSION = pgMigrations.length;
