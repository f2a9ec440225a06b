import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LociError } from '../../errors/index.js';
import { LOCI_VERSION } from '../../version.js';
import { CURRENT_SCHEMA_VERSION, migrations, STORE_FORMAT } from './schema.js';
import { matcherForGlobs } from '../../retrieve/path-match.js';

const SQLITE_HEADER = 'SQLite format 3\0';

export interface OpenDatabaseOptions {
  file: string;
  /** Create the database (and its folder) if it does not exist. */
  create: boolean;
  readonly?: boolean;
}

/**
 * Opens a loci SQLite database, refusing anything that is not one: a non-SQLite file or
 * an SQLite database with foreign tables is never written to, a newer schema is refused,
 * an older one is migrated inside one transaction.
 */
export function openDatabase(options: OpenDatabaseOptions): Database.Database {
  const { file } = options;
  const exists = existsSync(file) && statSync(file).size > 0;
  if (!exists && !options.create) {
    throw new LociError('INDEX_NOT_FOUND', `No loci index at ${file}.`);
  }
  if (exists) assertSqliteHeader(file);
  if (!exists) mkdirSync(dirname(file), { recursive: true });

  let db: Database.Database;
  try {
    db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: !options.create });
  } catch (error) {
    throw wrapSqliteError(error, file);
  }
  try {
    configure(db, options.readonly ?? false);
    prepareSchema(db, file, options.readonly ?? false);
  } catch (error) {
    db.close();
    throw error instanceof LociError ? error : wrapSqliteError(error, file);
  }
  return db;
}

function assertSqliteHeader(file: string): void {
  const handle = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(16);
    const read = readSync(handle, buffer, 0, 16, 0);
    if (read < 16 || buffer.toString('latin1') !== SQLITE_HEADER) {
      throw new LociError('STORE_FOREIGN', `${file} exists and is not an SQLite database.`, { details: { file } });
    }
  } finally {
    closeSync(handle);
  }
}

function configure(db: Database.Database, readonly: boolean): void {
  if (!readonly) {
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a crash (even kill -9) never corrupts the index or loses a committed
    // file; only a power loss may drop the last few commits, which the next run redoes.
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.function('loci_glob', { deterministic: true }, (globsJson: unknown, path: unknown) =>
    matcherForGlobs(String(globsJson))(String(path)) ? 1 : 0,
  );
}

function prepareSchema(db: Database.Database, file: string, readonly: boolean): void {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (tables.length === 0) {
    if (readonly) throw new LociError('INDEX_NOT_FOUND', `No loci index at ${file}.`);
    initialise(db);
    return;
  }
  if (!tables.includes('meta')) {
    throw new LociError('STORE_FOREIGN', `${file} is an SQLite database that loci did not create (tables: ${tables.slice(0, 5).join(', ')}).`, {
      details: { file, tables },
    });
  }
  const meta = new Map(
    (db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((row) => [row.key, row.value]),
  );
  if (meta.get('format') !== STORE_FORMAT) {
    throw new LociError('STORE_FOREIGN', `${file} has a meta table but is not a loci store.`, { details: { file } });
  }
  const version = Number(meta.get('schema_version'));
  if (!Number.isInteger(version) || version < 1) {
    throw new LociError('STORE_CORRUPT', `${file} has an unreadable schema version (${meta.get('schema_version')}).`, { details: { file } });
  }
  if (version > CURRENT_SCHEMA_VERSION) {
    throw new LociError('STORE_SCHEMA_TOO_NEW', `${file} has schema version ${version}; this loci (${LOCI_VERSION}) reads up to ${CURRENT_SCHEMA_VERSION}.`, {
      details: { file, version, supported: CURRENT_SCHEMA_VERSION },
    });
  }
  if (version < CURRENT_SCHEMA_VERSION) {
    if (readonly) throw new LociError('STORE_BUSY', `${file} needs a schema upgrade; open it for writing once (run \`loci index\`).`);
    migrate(db, version);
  }
}

function initialise(db: Database.Database): void {
  db.transaction(() => {
    for (const migration of migrations) migration(db);
    const insert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    insert.run('format', STORE_FORMAT);
    insert.run('schema_version', String(CURRENT_SCHEMA_VERSION));
    insert.run('created_at', String(Date.now()));
    insert.run('created_by', `loci ${LOCI_VERSION}`);
    insert.run('embedder', 'none');
    insert.run('dimensions', '0');
  }).immediate();
}

function migrate(db: Database.Database, from: number): void {
  db.transaction(() => {
    for (let version = from; version < CURRENT_SCHEMA_VERSION; version++) migrations[version]?.(db);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(CURRENT_SCHEMA_VERSION));
  }).immediate();
}

/** Maps better-sqlite3 errors onto loci codes; corrupt and busy databases get their own. */
export function wrapSqliteError(error: unknown, file: string): LociError {
  if (error instanceof LociError) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message ?? String(error);
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new LociError('STORE_CORRUPT', `The store at ${file} is damaged (${message}).`, { cause: error, details: { file } });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new LociError('STORE_BUSY', `The store at ${file} is locked by another process (${message}).`, { cause: error, details: { file } });
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_FULL') {
    return new LociError('STORE_BUSY', `Cannot write the store at ${file} (${message}).`, {
      cause: error,
      details: { file },
      hint: 'Check the folder exists, is writable and the disk has room; or pass --store elsewhere.',
    });
  }
  return new LociError('INTERNAL', `Store error at ${file}: ${message}`, { cause: error, details: { file } });
}
