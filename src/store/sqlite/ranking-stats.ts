import type Database from 'better-sqlite3';

/** The languages of the indexed files. */
export function sqliteLanguages(db: Database.Database): string[] {
  return db.prepare('SELECT DISTINCT language FROM files ORDER BY language').pluck().all() as string[];
}
