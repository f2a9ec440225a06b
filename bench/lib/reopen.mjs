// Engines opened from what their build left on disk (bench/lib/peer-engines.mjs builds them).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { FUSE_DEPTH, K, rrf, words } from './fusion.mjs';

const require = createRequire(import.meta.url);

/**
 * An engine opened from what its build left on disk, as a new process finds it: for the
 * first search in a new process (bench/lib/first-search-child.mjs). In-heap engines (orama,
 * minisearch) keep nothing on disk and are absent: every process rebuilds them.
 */
export const reopen = {
  async loci(dir) {
    const { createLoci } = await import('../../dist/index.js');
    const loci = createLoci({ root: dir, store: join(dir, 'loci-store') });
    return { search: async (query) => (await loci.search(query.text, { topK: K })).results.length, close: () => loci.close() };
  },
  async lancedb(dir) {
    process.env.LANCEDB_LOG ??= 'error';
    const lancedb = await import('@lancedb/lancedb');
    const table = await (await lancedb.connect(join(dir, 'lancedb'))).openTable('chunks');
    const reranker = await lancedb.rerankers.RRFReranker.create();
    return {
      search: async (query) =>
        (await table.query().nearestTo(Array.from(query.vector)).distanceType('cosine').fullTextSearch(words(query.text).join(' ')).rerank(reranker).select(['row']).limit(K).toArray()).length,
      close: () => table.close(),
    };
  },
  async 'sqlite-fts5+vec'(dir) {
    const Database = require('better-sqlite3');
    const sqliteVec = await import('sqlite-vec');
    const db = new Database(join(dir, 'peer.sqlite'), { readonly: true });
    sqliteVec.load(db);
    const fts = db.prepare('SELECT rowid FROM text_index WHERE text_index MATCH ? ORDER BY bm25(text_index) LIMIT ?');
    const knn = db.prepare('SELECT rowid FROM vectors WHERE embedding MATCH ? AND k = ?');
    return {
      search: async (query) => {
        const terms = words(query.text);
        const lexical = terms.length ? fts.all(terms.map((term) => `"${term}"`).join(' OR '), FUSE_DEPTH).map((row) => row.rowid - 1) : [];
        const vector = knn.all(Buffer.from(query.vector.buffer, query.vector.byteOffset, query.vector.byteLength), FUSE_DEPTH).map((row) => row.rowid - 1);
        return rrf([lexical, vector]).length;
      },
      close: () => db.close(),
    };
  },
  async usearch(dir, dimensions) {
    const usearch = await import('usearch');
    const index = new usearch.Index({ metric: 'cos', dimensions, connectivity: 16, expansion_add: 128, expansion_search: 160 });
    index.view(join(dir, 'usearch.index'));
    return { search: async (query) => index.search(query.vector, K, 0).keys.length, close: () => undefined };
  },
};
