import type Database from 'better-sqlite3';
import type { TermStatistics } from '../spec.js';
import { quoteFtsTerm } from '../../lexical/fts-query.js';

/** How many live chunks hold each term (in any field), out of how many: IDF for ranking. */
export function sqliteTermStatistics(db: Database.Database, terms: readonly string[]): TermStatistics {
  const chunks = db.prepare('SELECT count(*) FROM chunks').pluck().get() as number;
  const count = db.prepare('SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?').pluck();
  const frequencies = new Map<string, number>();
  for (const term of new Set(terms)) {
    const quoted = quoteFtsTerm(term);
    frequencies.set(term, quoted === '""' ? 0 : (count.get(quoted) as number));
  }
  return { chunks, frequencies };
}

/** The languages of the indexed files. */
export function sqliteLanguages(db: Database.Database): string[] {
  return db.prepare('SELECT DISTINCT language FROM files ORDER BY language').pluck().all() as string[];
}
