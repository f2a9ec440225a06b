import Database from 'better-sqlite3';
import { LociError } from '../../errors/index.js';
import { LOCI_VERSION } from '../../version.js';
import { CURRENT_SCHEMA_VERSION, migrations, STORE_FORMAT, TOMBSTONES_KEPT, TRIM_TOMBSTONES } from './schema.js';
import { matcherForGlobs } from '../path-match.js';
import { assertSqliteHeader, createDatabaseFile, inspectDatabasePath } from './store-files.js';
import { assertQuickCheck, damagedStoreError } from './damaged-store.js';
import type { StoreUpgradeListener } from '../spec.js';
import { tellUpgrade } from '../store-upgrade.js';

export interface OpenDatabaseOptions {
  file: string;
  /** Create the database (and its folder) if it does not exist. */
  create: boolean;
  readonly?: boolean;
  /**
   * Run PRAGMA quick_check after opening, so a damaged database is reported (STORE_CORRUPT)
   * instead of written to. Default: when opening to write (`create`).
   */
  quickCheck?: boolean;
  /** Told just before an older schema is migrated (once per store, inside the open). */
  onUpgrade?: StoreUpgradeListener;
}

/**
 * Opens a loci SQLite database, refusing anything that is not one: a non-SQLite file or
 * an SQLite database with foreign tables is never written to, a newer schema is refused,
 * an older one is migrated inside one transaction. Many processes may create the same
 * store at once: the schema is created under the write lock, once.
 */
export function openDatabase(options: OpenDatabaseOptions): Database.Database {
  const { file } = options;
  const readonly = options.readonly ?? false;
  const state = inspectDatabasePath(file);
  if (state !== 'database' && !options.create) {
    throw new LociError('INDEX_NOT_FOUND', `No loci index at ${file}.`);
  }
  if (state === 'database') assertSqliteHeader(file);
  else if (state === 'missing') createDatabaseFile(file);

  let db: Database.Database;
  try {
    db = new Database(file, { readonly, fileMustExist: true });
  } catch (error) {
    throw wrapSqliteError(error, file);
  }
  try {
    configure(db, readonly);
    prepareSchema(db, file, readonly, options.onUpgrade);
    // A writer trims the deletion log as it deletes (RowWriter); one that opens to index also
    // trims what older builds, which did not, left (a search's open never writes here).
    if (!readonly && options.create) trimLongLog(db);
    if (options.quickCheck ?? options.create) assertQuickCheck(db, file);
  } catch (error) {
    db.close();
    throw error instanceof LociError ? error : wrapSqliteError(error, file);
  }
  return db;
}

/**
 * How long a statement waits for another connection's lock before STORE_BUSY. Writes take
 * turns (one BEGIN IMMEDIATE at a time) and an indexing run holds the lock about a second
 * per group, but a crowd of writers on a loaded machine waits far longer: 40 processes
 * writing at once on 2 cores (test/e2e/store-race.test.ts) exceeded 10 s in one CI run.
 */
export const BUSY_TIMEOUT_MS = 30_000;

/**
 * Turns on WAL, retrying while another process holds the file: the switch can meet
 * SQLITE_BUSY at once, without the busy handler, while a crowd of processes creates or first
 * opens the same store (1 of ~8 runs of test/e2e/store-race.test.ts). Bounded by the busy timeout.
 */
function switchToWal(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      // A short, growing, jittered wait (this runs once per open, before any work).
      Atomics.wait(pause, 0, 0, Math.min(200, 5 * attempt) + Math.random() * 10);
    }
  }
}

function configure(db: Database.Database, readonly: boolean): void {
  // First: everything after it (even switching to WAL) may meet another process's lock.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!readonly) {
    switchToWal(db);
    // WAL + NORMAL: a crash (even kill -9) never corrupts the index or loses a committed
    // file; only a power loss may drop the last few commits, which the next run redoes.
    db.pragma('synchronous = NORMAL');
    // After a checkpoint empties it, the log file shrinks back to 64 MB (a bulk run grows it to ~256 MB).
    db.pragma('journal_size_limit = 67108864');
  }
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.function('loci_glob', { deterministic: true }, (globsJson: unknown, path: unknown) => (matcherForGlobs(String(globsJson))(String(path)) ? 1 : 0));
}

function prepareSchema(db: Database.Database, file: string, readonly: boolean, onUpgrade: OpenDatabaseOptions['onUpgrade']): void {
  const version = schemaVersionOf(db, file);
  if (version === CURRENT_SCHEMA_VERSION) return;
  if (readonly) {
    if (version === 0) throw new LociError('INDEX_NOT_FOUND', `No loci index at ${file}.`);
    throw new LociError('STORE_BUSY', `${file} needs a schema upgrade; open it for writing once (run \`loci index\`).`);
  }
  db.transaction(() => {
    // Read again under the write lock: another process may have created or migrated the
    // store between the first look and BEGIN IMMEDIATE.
    const locked = schemaVersionOf(db, file);
    if (locked === 0) initialise(db);
    else if (locked < CURRENT_SCHEMA_VERSION) {
      tellUpgrade(onUpgrade, { store: file, from: locked, to: CURRENT_SCHEMA_VERSION });
      migrate(db, locked);
    }
  }).immediate();
}

/** 0 for an empty database; the stored schema version of a loci store; throws for anything else. */
function schemaVersionOf(db: Database.Database, file: string): number {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (tables.length === 0) return 0;
  if (!tables.includes('meta')) {
    throw new LociError('STORE_FOREIGN', `${file} is an SQLite database that loci did not create (tables: ${tables.slice(0, 5).join(', ')}).`, {
      details: { file, tables },
    });
  }
  const meta = new Map((db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((row) => [row.key, row.value]));
  if (meta.get('format') !== STORE_FORMAT) {
    throw new LociError('STORE_FOREIGN', `${file} has a meta table but is not a loci store.`, { details: { file } });
  }
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version < 1) {
    throw damagedStoreError(file, `unreadable schema version ${JSON.stringify(meta.get('schema_version'))}`);
  }
  if (version > CURRENT_SCHEMA_VERSION) {
    throw new LociError('STORE_SCHEMA_TOO_NEW', `${file} has schema version ${version}; this loci (${LOCI_VERSION}) reads up to ${CURRENT_SCHEMA_VERSION}.`, {
      details: { file, version, supported: CURRENT_SCHEMA_VERSION },
    });
  }
  return version;
}

/**
 * Trims the deletion log when it is past its size. Only then: a write at every open would
 * fail with SQLITE_BUSY when many processes open a new store at once (its read turning into a
 * write after another's commit).
 */
function trimLongLog(db: Database.Database): void {
  const span = db.prepare('SELECT max(seq) - min(seq) FROM chunk_tombstones').pluck().get() as number | null;
  if (span !== null && span >= TOMBSTONES_KEPT) db.exec(TRIM_TOMBSTONES);
}

/** Runs inside the caller's write transaction. */
function initialise(db: Database.Database): void {
  for (const migration of migrations) migration(db);
  const insert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  insert.run('format', STORE_FORMAT);
  insert.run('schema_version', String(CURRENT_SCHEMA_VERSION));
  insert.run('created_at', String(Date.now()));
  insert.run('created_by', `loci ${LOCI_VERSION}`);
  insert.run('embedder', 'none');
  insert.run('dimensions', '0');
}

/** Runs inside the caller's write transaction. */
function migrate(db: Database.Database, from: number): void {
  for (let version = from; version < CURRENT_SCHEMA_VERSION; version++) migrations[version]?.(db);
  db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(CURRENT_SCHEMA_VERSION));
}

/** Maps better-sqlite3 errors onto loci codes; damaged, busy and unwritable databases get their own. */
export function wrapSqliteError(error: unknown, file: string): LociError {
  if (error instanceof LociError) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message ?? String(error);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return damagedStoreError(file, message, error);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new LociError('STORE_BUSY', `The store at ${file} is locked by another process (${message}).`, { cause: error, details: { file } });
  }
  if (code === 'SQLITE_FULL') {
    return new LociError('STORE_UNWRITABLE', `Cannot write the store at ${file}: the disk is full (${message}).`, { cause: error, details: { file } });
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_PERM') || code.startsWith('SQLITE_AUTH')) {
    return new LociError('STORE_UNWRITABLE', `Cannot open or write the store at ${file} (${message}).`, { cause: error, details: { file } });
  }
  return new LociError('INTERNAL', `Store error at ${file}: ${message}`, { cause: error, details: { file } });
}
