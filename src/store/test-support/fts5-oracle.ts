import Database from 'better-sqlite3';
import { lexicalFieldsOf } from '../../lexical/fields.js';
import type { LexicalQuery, ScoredRow, Store } from '../spec.js';

/**
 * SQLite FTS5's bm25() over the live rows of a store, as the reference loci's own BM25
 * must match score for score. Rows are rebuilt from the stored chunks the way the
 * contract's `chunk()` helper builds their lexical fields (path, symbols, no heading, text).
 */
export async function fts5Oracle(store: Store): Promise<{ search(query: LexicalQuery): ScoredRow[]; close(): void }> {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(path, symbols, heading, body, tokenize = "unicode61 remove_diacritics 0 tokenchars '_'")`);
  const insert = db.prepare('INSERT INTO f (rowid, path, symbols, heading, body) VALUES (?, ?, ?, ?, ?)');
  const paths = new Map<number, string>();
  const rowIds = [...(await store.liveRowIds())];
  for (const record of await store.getChunks(rowIds)) {
    const { lexical } = lexicalFieldsOf({ path: record.path, symbols: record.symbols.join(' '), heading: '', body: record.text });
    insert.run(record.rowId, lexical.path, lexical.symbols, lexical.heading, lexical.body);
    paths.set(record.rowId, record.path);
  }
  const quote = (term: string) => `"${term.replaceAll('\u0000', '').replaceAll('"', '""')}"`;
  return {
    search(query) {
      if (query.terms.length === 0) return [];
      const { path, symbols, heading, body } = query.weights;
      const rows = db
        .prepare('SELECT rowid AS rowId, -bm25(f, ?, ?, ?, ?) AS score FROM f WHERE f MATCH ? ORDER BY score DESC, rowid')
        .all(path, symbols, heading, body, query.terms.map(quote).join(' OR ')) as Array<{ rowId: number; score: number }>;
      const prefixes = query.filter?.pathPrefixes;
      return rows
        .map((row) => ({ ...row, path: paths.get(row.rowId) as string }))
        .filter((row) => !prefixes || prefixes.some((prefix) => row.path.startsWith(prefix)))
        .slice(0, query.limit);
    },
    close: () => db.close(),
  };
}
