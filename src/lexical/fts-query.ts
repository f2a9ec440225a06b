/**
 * The one place FTS5 query text is built. Every term is emitted as a quoted string with
 * embedded quotes doubled, so no user input can reach FTS5's query syntax (column
 * filters, NEAR, `*`, parentheses, AND/OR/NOT keywords).
 */
export function quoteFtsTerm(term: string): string {
  // SQLite reads the query as a C string: a NUL would cut it short mid-quote.
  return `"${term.replaceAll('\0', '').replaceAll('"', '""')}"`;
}

/** A disjunction of terms (BM25 ranks documents by how many and how rare). */
export function ftsAnyOf(terms: readonly string[]): string {
  return terms.map(quoteFtsTerm).join(' OR ');
}
