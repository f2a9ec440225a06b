import type Database from 'better-sqlite3';
import { STORE_INSTANCE_STATE } from '../file-names.js';
import { openDatabase } from './open-database.js';
import { viewVector } from './vector-codec.js';

/**
 * A LEFT JOIN keeps the chunks as the outer loop, walked by row id from `after`: with an inner
 * join SQLite walked every vector of the embedder and sorted them, each step (quadratic in a run).
 */
export const VECTOR_ROWS_SQL = `SELECT c.id, e.vector FROM chunks c
  LEFT JOIN embeddings e ON e.embedder = ? AND e.content_hash = c.content_hash
  WHERE c.id > ? ORDER BY c.id LIMIT ?`;

/** A step of rows with vectors: their ids and their vectors, scaled to unit length, one after another. */
export interface VectorStep {
  rowIds: Int32Array;
  matrix: Float32Array;
  /** The last row id read (the next step starts after it); the `after` given when none was. */
  last: number;
}

/**
 * Reads a store's vectors in row order for building a vector graph beside an indexing run (its
 * own read-only connection): only ids and vector blobs, no chunk text or term lists, each
 * vector written scaled to unit length straight into one matrix per step.
 */
export class VectorRowReader {
  private readonly db: Database.Database;
  private readonly statement: Database.Statement;

  constructor(file: string) {
    this.db = openDatabase({ file, create: false, readonly: true, quickCheck: false });
    this.statement = this.db.prepare(VECTOR_ROWS_SQL).raw(true);
  }

  /** The rows with a vector of `dimensions` values among the `limit` rows after `after` (the others are passed over). */
  read(embedderId: string, after: number, limit: number, dimensions: number): VectorStep {
    const rows = this.statement.all(embedderId, after, limit) as Array<[number, Buffer | null]>;
    const matrix = new Float32Array(rows.length * dimensions);
    const rowIds = new Int32Array(rows.length);
    let kept = 0;
    for (const [rowId, blob] of rows) {
      if (!blob || blob.byteLength !== dimensions * 4) continue;
      const vector = viewVector(blob, dimensions);
      let norm = 0;
      for (let index = 0; index < dimensions; index++) norm += (vector[index] as number) ** 2;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      const base = kept * dimensions;
      for (let index = 0; index < dimensions; index++) matrix[base + index] = (vector[index] as number) * scale;
      rowIds[kept++] = rowId;
    }
    const last = rows.length > 0 ? (rows[rows.length - 1] as [number, Buffer | null])[0] : after;
    // Copies only when a row was skipped: a native add reads whole arrays.
    if (kept === rows.length) return { rowIds, matrix, last };
    return { rowIds: rowIds.slice(0, kept), matrix: matrix.slice(0, kept * dimensions), last };
  }

  /** The store's instance id now (its graph file's key list carries it), or undefined while it has none. */
  storeInstance(): string | undefined {
    return (this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(`state:${STORE_INSTANCE_STATE}`) as string | undefined) || undefined;
  }

  close(): void {
    this.db.close();
  }
}
