import type Database from 'better-sqlite3';

export const STORE_FORMAT = 'loci-store';

/**
 * Ordered migrations; index i moves a store from schema version i to i + 1. A new
 * version appends a migration and never edits an old one.
 */
export const migrations: ReadonlyArray<(db: Database.Database) => void> = [
  (db) => {
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

      CREATE TABLE files (
        path TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        mtime_ms REAL NOT NULL,
        content_hash TEXT NOT NULL,
        language TEXT NOT NULL,
        chunker TEXT NOT NULL,
        embedder TEXT NOT NULL,
        chunk_count INTEGER NOT NULL,
        indexed_at INTEGER NOT NULL,
        attributes TEXT
      ) WITHOUT ROWID;

      -- AUTOINCREMENT: row ids are never reused, so in-memory vector indexes keyed by
      -- row id can never point at a different chunk after a delete.
      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chunk_id TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        language TEXT NOT NULL,
        kind TEXT NOT NULL,
        symbol TEXT,
        symbols TEXT NOT NULL DEFAULT '[]',
        heading_path TEXT NOT NULL DEFAULT '[]',
        text TEXT NOT NULL
      );
      CREATE INDEX chunks_by_path ON chunks(path);
      CREATE INDEX chunks_by_content ON chunks(content_hash);

      -- The fields hold loci's own code-aware tokens, not the raw text. The table keeps
      -- its content: a contentless FTS5 table cannot update its row count and token
      -- totals on delete, so its BM25 statistics would drift as files change.
      CREATE VIRTUAL TABLE chunk_fts USING fts5(
        path, symbols, heading, body,
        tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
      );

      -- The lexicon and per-chunk term statistics feed the in-memory lexical index, which
      -- scores exactly like FTS5's bm25() but an order of magnitude faster.
      CREATE TABLE lexicon (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);

      -- Symbol names (whole, and their last segment) for queries that name a symbol.
      CREATE TABLE symbol_names (name TEXT NOT NULL, chunk INTEGER NOT NULL);
      CREATE INDEX symbol_names_by_name ON symbol_names(name);
      CREATE INDEX symbol_names_by_chunk ON symbol_names(chunk);
      CREATE TABLE chunk_terms (chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);

      -- The embedding cache doubles as the vector table: chunks join it by content hash,
      -- so identical text is embedded once and survives branch switches.
      CREATE TABLE embeddings (
        embedder TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        vector BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (embedder, content_hash)
      ) WITHOUT ROWID;
    `);
  },
  // 2: one lexical form per chunk. The FTS5 table held a second copy of every chunk's tokens
  // (28% of the database at 30k chunks) for one-shot searches; they now read the segment
  // file, or loci's own index rebuilt from chunk_terms.
  (db) => {
    db.exec('DROP TABLE IF EXISTS chunk_fts');
  },
  // 3: a count of deleted chunk rows, moved by the database itself in the deleting commit
  // (whoever deletes), so a reader can tell that nothing was deleted since it last looked
  // without counting every row (at 1M chunks `count(*)` took ~80 ms on each catch-up).
  (db) => {
    db.exec(`
      INSERT OR IGNORE INTO meta (key, value) VALUES ('chunk_deletions', '0');
      CREATE TRIGGER IF NOT EXISTS chunk_deletions AFTER DELETE ON chunks
      BEGIN
        UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunk_deletions';
      END;
    `);
  },
  // 4: which chunk rows were deleted, logged by the same trigger under the count's new value,
  // so a reader that saw count D reads the row ids deleted after it (seq > D) instead of every
  // live row id (at 100k chunks ~60 ms, at 1M ~0.6 s for each new process after an edit).
  // Kept short (TRIM_TOMBSTONES, run by writers): a reader further behind finds fewer than it
  // needs and compares every row id, as before.
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS chunk_tombstones (seq INTEGER PRIMARY KEY, row_id INTEGER NOT NULL);
      DROP TRIGGER IF EXISTS chunk_deletions;
      CREATE TRIGGER chunk_deletions AFTER DELETE ON chunks
      BEGIN
        UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunk_deletions';
        INSERT OR REPLACE INTO chunk_tombstones (seq, row_id) SELECT CAST(value AS INTEGER), OLD.id FROM meta WHERE key = 'chunk_deletions';
      END;
    `);
  },
  // 5: the vector table in the order its rows are written. Keyed by (embedder, content hash) in
  // a WITHOUT ROWID table, each row (~600 bytes with its vector) went to a random place in the
  // tree, so each commit of a big run rewrote pages all over it. Rows now append; a unique index
  // of the small keys finds them. Writing 100k chunks (bench/sqlite-writes.mjs): 16-17 s before,
  // 14.2 s with this table, 11.6 s with a bulk run's chunks_by_content dropped too (bulk-mode.ts).
  (db) => {
    db.exec(`
      CREATE TABLE embeddings_by_row (embedder TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL, created_at INTEGER NOT NULL);
      INSERT INTO embeddings_by_row (embedder, content_hash, vector, created_at) SELECT embedder, content_hash, vector, created_at FROM embeddings;
      DROP TABLE embeddings;
      ALTER TABLE embeddings_by_row RENAME TO embeddings;
      CREATE UNIQUE INDEX embeddings_by_key ON embeddings(embedder, content_hash);
    `);
  },
];

/** Deleted row ids the log keeps (the newest). */
export const TOMBSTONES_KEPT = 100_000;
/** Drops all but the newest TOMBSTONES_KEPT of the log (an index range on its key: nothing to do costs a lookup). */
export const TRIM_TOMBSTONES = `DELETE FROM chunk_tombstones WHERE seq <= (SELECT max(seq) FROM chunk_tombstones) - ${TOMBSTONES_KEPT}`;

export const CURRENT_SCHEMA_VERSION = migrations.length;
