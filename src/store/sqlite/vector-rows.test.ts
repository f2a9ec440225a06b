import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogEntry, chunk } from '../test-support/store-contract.js';
import { openSqliteStore } from './sqlite-store.js';
import Database from 'better-sqlite3';
import { VECTOR_ROWS_SQL, VectorRowReader } from './vector-rows.js';

describe('VectorRowReader (the vector graph worker’s read)', () => {
  it('reads ids and unit vectors in row order, skipping rows without a vector of the size asked, and resumes after the last row read', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-vector-rows-'));
    const file = join(folder, 'index.db');
    const store = openSqliteStore({ file, create: true });
    try {
      await store.setEmbedder('test@3', 3);
      await store.writeFile({
        entry: catalogEntry('a.ts', { embedder: 'test@3' }),
        chunks: [
          chunk('a.ts', 1, 'alpha', { vector: Float32Array.of(3, 0, 4) }),
          chunk('a.ts', 3, 'beta'), // no vector yet
          chunk('a.ts', 5, 'gamma', { vector: Float32Array.of(0, 2, 0) }),
          chunk('a.ts', 7, 'delta', { vector: Float32Array.of(1, 1) }), // another size
          chunk('a.ts', 9, 'epsilon', { vector: Float32Array.of(0, 0, 0) }),
        ],
      });
      const ids = (await store.scanIndexRows({})).map((row) => row.rowId);
      // Walked by row id from where the last step ended, never every vector sorted again.
      const db = new Database(file, { readonly: true });
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${VECTOR_ROWS_SQL}`).all('test@3', 0, 10) as Array<{ detail: string }>).map((step) => step.detail);
      db.close();
      expect(plan[0]).toMatch(/^SEARCH c USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
      const reader = new VectorRowReader(file);
      try {
        const first = reader.read('test@3', 0, 3, 3);
        expect([...first.rowIds]).toEqual([ids[0], ids[2]]);
        expect([...first.matrix].map((value) => Math.round(value * 1000) / 1000)).toEqual([0.6, 0, 0.8, 0, 1, 0]);
        const rest = reader.read('test@3', first.last, 10, 3);
        // The row of another size is skipped; the zero vector stays zero.
        expect([...rest.rowIds]).toEqual([ids[4]]);
        expect([...rest.matrix]).toEqual([0, 0, 0]);
        const none = reader.read('test@3', rest.last, 10, 3);
        expect(none).toMatchObject({ last: rest.last, rowIds: new Int32Array(0) });
        expect(reader.read('other@3', 0, 10, 3).rowIds.length).toBe(0);
      } finally {
        reader.close();
      }
    } finally {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
