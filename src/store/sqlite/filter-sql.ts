import type { SearchFilter } from '../spec.js';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

// The largest code point: every path that starts with `prefix` sorts below prefix + this.
const AFTER_ANY = '\u{10ffff}';

/**
 * Builds a WHERE fragment over the `chunks` alias `c` from a filter. Values are always
 * bound parameters; glob matching goes through the registered `loci_glob` function.
 */
export function filterToSql(filter: SearchFilter | undefined, alias = 'c'): SqlFragment | undefined {
  if (!filter) return undefined;
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.languages && filter.languages.length > 0) {
    clauses.push(`${alias}.language IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.languages));
  }
  if (filter.pathPrefixes && filter.pathPrefixes.length > 0) {
    const ranges = filter.pathPrefixes.map(() => `(${alias}.path >= ? AND ${alias}.path < ?)`);
    clauses.push(`(${ranges.join(' OR ')})`);
    for (const prefix of filter.pathPrefixes) params.push(prefix, prefix + AFTER_ANY);
  }
  if (filter.pathSet) {
    clauses.push(`${alias}.path IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.pathSet));
  }
  if (filter.pathGlobs && filter.pathGlobs.length > 0) {
    clauses.push(`loci_glob(?, ${alias}.path)`);
    params.push(JSON.stringify(filter.pathGlobs));
  }
  if (clauses.length === 0) return undefined;
  return { sql: clauses.join(' AND '), params };
}
