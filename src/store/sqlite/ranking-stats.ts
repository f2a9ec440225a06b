import type Database from 'better-sqlite3';

/** The languages of the indexed files and how many chunks each holds, by name. */
export function sqliteLanguages(db: Database.Database): Map<string, number> {
  const rows = db.prepare('SELECT language, SUM(chunk_count) FROM files GROUP BY language ORDER BY language').raw().all() as Array<[string, number]>;
  return new Map(rows.map(([language, chunks]) => [language, Number(chunks)]));
}
