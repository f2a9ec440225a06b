import type Database from 'better-sqlite3';
import type { MentionQuery, ScoredRow } from '../spec.js';
import { filterToSql } from './filter-sql.js';

/** Chunks that define a named symbol or belong to a named file (paths match whole or as a suffix). */
export function findMentionsSql(db: Database.Database, query: MentionQuery): ScoredRow[] {
  if ((query.symbols.length === 0 && query.paths.length === 0) || query.limit <= 0) return [];
  const filter = filterToSql(query.filter);
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (query.symbols.length > 0) {
    conditions.push('c.id IN (SELECT chunk FROM symbol_names WHERE name IN (SELECT value FROM json_each(?)))');
    params.push(JSON.stringify(query.symbols.map((symbol) => symbol.toLowerCase())));
  }
  for (const path of query.paths) {
    const clean = path.replace(/\\/g, '/').replace(/^\.?\//, '');
    conditions.push("(c.path = ? OR c.path LIKE ? ESCAPE '!')");
    params.push(clean, `%/${clean.replace(/[!%_]/g, (character) => `!${character}`)}`);
  }
  const sql = `SELECT c.id AS rowId, 1.0 AS score, c.path AS path FROM chunks c WHERE (${conditions.join(' OR ')})${filter ? ` AND ${filter.sql}` : ''} ORDER BY c.id LIMIT ?`;
  return db.prepare(sql).all(...params, ...(filter?.params ?? []), query.limit) as ScoredRow[];
}
