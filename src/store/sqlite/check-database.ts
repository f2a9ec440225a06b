import Database from 'better-sqlite3';
import { isLociError } from '../../errors/index.js';
import { damagedStoreError } from './damaged-store.js';
import { BUSY_TIMEOUT_MS } from './open-database.js';
import { STORE_FORMAT } from './schema.js';
import { assertSqliteHeader } from './store-files.js';

export type CheckStatus = 'ok' | 'warning' | 'error';

export interface StoreFinding {
  file: string;
  check: string;
  status: CheckStatus;
  detail: string;
  /** What to do about it; absent when nothing needs doing. */
  fix?: string;
}

/** Rows that should have a partner and do not: a half-applied write or a damaged index. */
const ORPHAN_QUERIES: ReadonlyArray<[string, string]> = [
  ['chunks without a file row', 'SELECT count(*) FROM chunks WHERE path NOT IN (SELECT path FROM files)'],
  ['file rows whose chunk count is wrong', 'SELECT count(*) FROM files f WHERE chunk_count != (SELECT count(*) FROM chunks c WHERE c.path = f.path)'],
  ['term rows without a chunk', 'SELECT count(*) FROM chunk_terms WHERE chunk NOT IN (SELECT id FROM chunks)'],
  ['chunks without term rows', 'SELECT count(*) FROM chunks WHERE id NOT IN (SELECT chunk FROM chunk_terms)'],
  ['symbol rows without a chunk', 'SELECT count(*) FROM symbol_names WHERE chunk NOT IN (SELECT id FROM chunks)'],
];

/**
 * The full check of one loci SQLite database, without changing it: integrity_check (pages,
 * b-trees and index/table agreement) and rows left without their partners. (The segment
 * files beside it are checked by doctor itself.)
 */
export function checkDatabase(file: string): StoreFinding[] {
  const findings: StoreFinding[] = [];
  const damaged = (check: string, detail: string): StoreFinding => ({ file, check, status: 'error', detail, fix: damagedStoreError(file, detail).hint });
  let db: Database.Database;
  try {
    assertSqliteHeader(file);
  } catch (error) {
    if (!isLociError(error)) throw error;
    return [{ file, check: 'open', status: 'error', detail: error.message, fix: error.hint }];
  }
  try {
    db = new Database(file, { fileMustExist: true });
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    return [
      { file, check: 'open', status: 'error', detail: `Cannot open ${file}: ${(error as Error).message}.`, fix: 'Check the file exists and is readable, or run `loci index` to create the index.' },
    ];
  }
  let format: unknown;
  try {
    format = db.prepare("SELECT value FROM meta WHERE key = 'format'").pluck().get();
  } catch {
    format = undefined;
  }
  if (format !== STORE_FORMAT) {
    // Either not loci's, or a damaged page hides the meta table: integrity_check tells which.
    const integrity = safeIntegrity(db);
    db.close();
    if (integrity !== 'ok') return [damaged('integrity_check', integrity)];
    return [{ file, check: 'open', status: 'error', detail: `${file} is an SQLite database but not a loci store.`, fix: 'Point --store at the loci store folder.' }];
  }
  const integrity = safeIntegrity(db);
  findings.push(integrity === 'ok' ? { file, check: 'integrity_check', status: 'ok', detail: 'ok' } : damaged('integrity_check', integrity));
  // Orphan counts over damaged pages would only repeat the damage: the rebuild fixes both.
  for (const [label, sql] of integrity === 'ok' ? ORPHAN_QUERIES : []) {
    try {
      const count = Number(db.prepare(sql).pluck().get());
      if (count === 0) continue;
      findings.push({ file, check: 'orphan rows', status: 'warning', detail: `${count} ${label}`, fix: damagedStoreError(file, label).hint });
    } catch (error) {
      findings.push(damaged('orphan rows', `${label}: ${(error as Error).message}`));
    }
  }
  if (integrity === 'ok' && !findings.some((finding) => finding.check === 'orphan rows')) findings.push({ file, check: 'orphan rows', status: 'ok', detail: 'none' });
  db.close();
  return findings;
}

/** The embedder recorded in a database's meta table, if it can be read. */
export function recordedEmbedder(file: string): string | undefined {
  return recordedMeta(file, 'embedder');
}

/** A value of the store's meta table (`state:<name>` for named state), or undefined when absent or unreadable. */
export function recordedMeta(file: string, key: string): string | undefined {
  try {
    // Not read-only: a read-only connection cannot remove the -wal and -shm files it opens.
    const db = new Database(file, { fileMustExist: true });
    try {
      return (db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined) || undefined;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

function safeIntegrity(db: Database.Database): string {
  try {
    const lines = (db.pragma('integrity_check(20)') as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
    return lines.length === 1 && lines[0] === 'ok' ? 'ok' : `integrity_check: ${lines.join('; ')}`;
  } catch (error) {
    return `integrity_check: ${(error as Error).message}`;
  }
}
