import type Database from 'better-sqlite3';
import { compileFilter } from '../filter-match.js';
import { TopK } from '../top-k.js';
import type { ScoredRow, VectorQuery } from '../spec.js';
import { viewVector } from './vector-codec.js';

/**
 * Exact cosine top-k over the stored vectors (the one-shot path; a long-lived engine keeps
 * them in memory instead). Rows come back as arrays, not objects; a blob is read in place
 * when it is 4-byte aligned (copied when not); without a filter only ids and vectors are
 * read, and the winners' paths are fetched afterwards.
 */
export interface VectorScanStatements {
  /** (id, vector) of every chunk with a vector from the embedder, as arrays. */
  vectorIds: Database.Statement;
  /** (id, vector, path, language), as arrays. */
  vectorRows: Database.Statement;
  /** (id, path) for a JSON list of ids, as arrays. */
  pathsByIds: Database.Statement;
}

export function scanVectors(statements: VectorScanStatements, query: VectorQuery): ScoredRow[] {
  const accept = compileFilter(query.filter);
  const top = new TopK(query.limit);
  const queryVector = query.vector;
  let queryNorm = 0;
  for (const value of queryVector) queryNorm += value * value;
  queryNorm = Math.sqrt(queryNorm) || 1;
  const pathOf = new Map<number, string>();
  const dimensions = queryVector.length;
  const statement = accept ? statements.vectorRows : statements.vectorIds;
  for (const row of statement.iterate(query.embedderId) as Iterable<[number, Buffer] | [number, Buffer, string, string]>) {
    const path = row[2];
    if (accept && !accept(path as string, row[3] as string)) continue;
    const blob = row[1];
    if (blob.byteLength !== dimensions * 4) continue;
    const vector = viewVector(blob, dimensions);
    let dot = 0;
    let norm = 0;
    for (let index = 0; index < dimensions; index++) {
      const value = vector[index] as number;
      dot += value * (queryVector[index] as number);
      norm += value * value;
    }
    const score = dot / (queryNorm * (Math.sqrt(norm) || 1));
    if (score > top.floor) {
      top.push(row[0], score);
      if (path !== undefined) pathOf.set(row[0], path);
    }
  }
  const best = top.sorted();
  if (!accept && best.length > 0) {
    for (const [id, path] of statements.pathsByIds.all(JSON.stringify(best.map(({ id }) => id))) as Array<[number, string]>) pathOf.set(id, path);
  }
  return best.filter(({ id }) => pathOf.has(id)).map(({ id, score }) => ({ rowId: id, score, path: pathOf.get(id) as string }));
}
