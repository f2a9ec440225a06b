import type Database from 'better-sqlite3';

/**
 * Write-ahead log pages between automatic checkpoints: SQLite's default, and during a bulk
 * run (256 MB). Writing 100k chunks in groups of 2,048: 23.7 s with the default, 19.3 s at
 * 64 MB, 16.0 s at 256 MB, 18.3 s never checkpointing until the end (a 1.7 GB log).
 */
const DEFAULT_CHECKPOINT_PAGES = 1000;
const BULK_CHECKPOINT_PAGES = 65_536;

/**
 * Below this many chunks, a bulk run drops the content-hash index of the chunks and builds it
 * again at its end. Its keys are random hashes, so every commit of a big run rewrote pages all
 * over it: writing 300k chunks took 67.5 s with it, 43.7 s without it, and building it after
 * took 0.9 s (bench/sqlite-writes.mjs). A store already past this size keeps it: a few hundred
 * changed files would then pay for reading every row.
 */
export const DROP_CONTENT_INDEX_BELOW = 50_000;

const CONTENT_INDEX = 'chunks_by_content';

/**
 * The index only the garbage collection of vectors reads (which vectors no chunk uses), built
 * if a bulk run dropped it and did not get to build it again (a crash, a kill, another process
 * mid-run). Building it reads every row once; when it exists this is a look at the schema.
 */
export function ensureContentIndex(db: Database.Database): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(CONTENT_INDEX);
  if (!exists) db.exec(`CREATE INDEX IF NOT EXISTS ${CONTENT_INDEX} ON chunks(content_hash)`);
}

/** The first bulk run on this connection starts: checkpoints far apart, and on a small store no content-hash index until it ends. */
export function startBulk(db: Database.Database, chunks: number): void {
  db.pragma(`wal_autocheckpoint = ${BULK_CHECKPOINT_PAGES}`);
  if (chunks < DROP_CONTENT_INDEX_BELOW) db.exec(`DROP INDEX IF EXISTS ${CONTENT_INDEX}`);
}

/** The last bulk run on this connection ended: the index back, and what the runs left in the log moved to the database without waiting on readers. */
export function endBulk(db: Database.Database): void {
  ensureContentIndex(db);
  db.pragma(`wal_autocheckpoint = ${DEFAULT_CHECKPOINT_PAGES}`);
  db.pragma('wal_checkpoint(PASSIVE)');
}
