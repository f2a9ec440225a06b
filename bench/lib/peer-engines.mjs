// The engines the peer benchmark compares, behind one shape:
//   { name, build(data), lexical?(query), vector?(query), hybrid?(query), close() }
// data: { chunks: [{ id, text }], vectors: Float32Array (n × d, unit length), dimensions, dir }
// query: { text, vector: Float32Array }; each search returns the top-10 row numbers.
// Peers are the benchmark's own dependencies (bench/package.json), never loci's.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createLoci } from '../../dist/index.js';
import { FUSE_DEPTH, K, rrf, words } from './fusion.mjs';
import { storedVectorTruth } from './stored-vectors.mjs';

const require = createRequire(import.meta.url);
const vectorAt = (data, row) => data.vectors.subarray(row * data.dimensions, (row + 1) * data.dimensions);

export function lociEngine() {
  let loci;
  let rowOf;
  let data_;
  // Peers fuse signals and stop there, so `hybrid` is loci doing that same work (fused order);
  // `ranked` is loci's default hybrid search, with its learned ranker on top (no peer has one).
  const run = async (query, mode, ranker = false) => (await loci.search(query.text, { mode, topK: K, ranker })).results.map((result) => rowOf.get(result.path));
  return {
    name: 'loci',
    async build(data) {
      data_ = data;
      rowOf = new Map(data.chunks.map((chunk, row) => [chunk.id, row]));
      loci = createLoci({ root: data.dir, store: join(data.dir, 'loci-store') });
      await loci.indexDocuments(data.chunks.map((chunk) => ({ id: chunk.id, text: chunk.text })));
    },
    /** First search: loads the warm index (and builds or loads the vector graph). */
    async warm(query) {
      await loci.search(query.text, { mode: 'hybrid', topK: K });
    },
    /**
     * Exact cosine top-10 over the vectors loci stored (it embeds its own chunk text), so
     * its recall measures its vector index, not a difference in what was embedded; and the
     * cosine of any row over those vectors (ties with the 10th best count as right).
     */
    async groundTruth(queries) {
      const { tops, cosine } = await storedVectorTruth(
        join(data_.dir, 'loci-store'),
        await loci.embedder(),
        queries.map((query) => query.text),
        K,
      );
      const pathOf = data_.chunks.map((chunk) => chunk.id);
      return { tops: tops.map((top) => top.map((path) => rowOf.get(path))), cosine: (queryIndex, row) => cosine(queryIndex, pathOf[row]) };
    },
    lexical: (query) => run(query, 'lexical'),
    vector: (query) => run(query, 'vector'),
    hybrid: (query) => run(query, 'hybrid'),
    ranked: (query) => run(query, 'hybrid', true),
    close: () => loci.close(),
  };
}

export async function oramaEngine() {
  const orama = await import('@orama/orama');
  let db;
  const rows = (hits) => hits.hits.map((hit) => Number(hit.id));
  return {
    name: 'orama',
    async build(data) {
      db = orama.create({ schema: { text: 'string', embedding: `vector[${data.dimensions}]` } });
      const docs = data.chunks.map((chunk, row) => ({ id: String(row), text: chunk.text, embedding: Array.from(vectorAt(data, row)) }));
      await orama.insertMultiple(db, docs, 2000);
    },
    lexical: async (query) => rows(await orama.search(db, { term: query.text, properties: ['text'], limit: K })),
    vector: async (query) => rows(await orama.search(db, { mode: 'vector', vector: { value: Array.from(query.vector), property: 'embedding' }, similarity: 0, limit: K })),
    hybrid: async (query) => rows(await orama.search(db, { mode: 'hybrid', term: query.text, vector: { value: Array.from(query.vector), property: 'embedding' }, similarity: 0, limit: K })),
    async close() {},
  };
}

export async function lanceEngine() {
  // LanceDB's Rust logger warns about column projection on every query; keep the table readable.
  process.env.LANCEDB_LOG ??= 'error';
  process.env.RUST_LOG ??= 'error';
  const lancedb = await import('@lancedb/lancedb');
  let table;
  let reranker;
  const rows = (records) => records.map((record) => record.row);
  return {
    name: 'lancedb',
    async build(data, options = {}) {
      const dir = join(data.dir, 'lancedb');
      mkdirSync(dir, { recursive: true });
      const db = await lancedb.connect(dir);
      const records = data.chunks.map((chunk, row) => ({ row, text: chunk.text, vector: Array.from(vectorAt(data, row)) }));
      table = await db.createTable('chunks', records, { mode: 'overwrite' });
      await table.createIndex('text', { config: lancedb.Index.fts() });
      // An ANN index where a flat scan gets slow; below that LanceDB scans exactly.
      if (options.ann) await table.createIndex('vector', { config: lancedb.Index.hnswSq({ distanceType: 'cosine' }) });
      reranker = await lancedb.rerankers.RRFReranker.create();
    },
    lexical: async (query) => rows(await table.search(words(query.text).join(' '), 'fts').select(['row']).limit(K).toArray()),
    vector: async (query) => rows(await table.search(Array.from(query.vector)).distanceType('cosine').select(['row']).limit(K).toArray()),
    hybrid: async (query) =>
      rows(await table.query().nearestTo(Array.from(query.vector)).distanceType('cosine').fullTextSearch(words(query.text).join(' ')).rerank(reranker).select(['row']).limit(K).toArray()),
    async close() {
      table?.close();
    },
  };
}

/** Raw SQLite: FTS5 (bm25) for text, sqlite-vec for vectors, RRF in JS for hybrid. */
export async function sqliteEngine() {
  const Database = require('better-sqlite3');
  const sqliteVec = await import('sqlite-vec');
  let db;
  let fts;
  let knn;
  const lexical = (query, depth) => {
    const terms = words(query.text);
    if (terms.length === 0) return [];
    return fts.all(terms.map((term) => `"${term}"`).join(' OR '), depth).map((row) => row.rowid - 1);
  };
  const vector = (query, depth) => knn.all(Buffer.from(query.vector.buffer, query.vector.byteOffset, query.vector.byteLength), depth).map((row) => row.rowid - 1);
  return {
    name: 'sqlite-fts5+vec',
    async build(data) {
      db = new Database(join(data.dir, 'peer.sqlite'));
      db.pragma('journal_mode = WAL');
      sqliteVec.load(db);
      db.exec(`CREATE VIRTUAL TABLE text_index USING fts5(text, tokenize = 'unicode61');
               CREATE VIRTUAL TABLE vectors USING vec0(embedding float[${data.dimensions}] distance_metric=cosine);`);
      const insertText = db.prepare('INSERT INTO text_index (rowid, text) VALUES (?, ?)');
      const insertVector = db.prepare('INSERT INTO vectors (rowid, embedding) VALUES (?, ?)');
      const insertAll = db.transaction((from, to) => {
        for (let row = from; row < to; row++) {
          insertText.run(row + 1, data.chunks[row].text);
          const vector = vectorAt(data, row);
          insertVector.run(BigInt(row + 1), Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
        }
      });
      for (let from = 0; from < data.chunks.length; from += 5000) insertAll(from, Math.min(data.chunks.length, from + 5000));
      fts = db.prepare('SELECT rowid FROM text_index WHERE text_index MATCH ? ORDER BY bm25(text_index) LIMIT ?');
      knn = db.prepare('SELECT rowid FROM vectors WHERE embedding MATCH ? AND k = ?');
    },
    lexical: async (query) => lexical(query, K),
    vector: async (query) => vector(query, K),
    hybrid: async (query) => rrf([lexical(query, FUSE_DEPTH), vector(query, FUSE_DEPTH)]),
    async close() {
      db?.close();
    },
  };
}

export async function miniSearchEngine() {
  const { default: MiniSearch } = await import('minisearch');
  let index;
  return {
    name: 'minisearch',
    async build(data) {
      index = new MiniSearch({ fields: ['text'], idField: 'row' });
      index.addAll(data.chunks.map((chunk, row) => ({ row, text: chunk.text })));
    },
    lexical: async (query) =>
      index
        .search(query.text, { combineWith: 'OR' })
        .slice(0, K)
        .map((hit) => hit.id),
    async close() {},
  };
}

/** usearch on its own: the floor for vector search (HNSW, and its exact SIMD scan). */
export async function usearchEngine() {
  const usearch = await import('usearch');
  let index;
  let data;
  return {
    name: 'usearch',
    async build(input) {
      data = input;
      index = new usearch.Index({ metric: 'cos', dimensions: data.dimensions, connectivity: 16, expansion_add: 128, expansion_search: 160 });
      const keys = BigUint64Array.from(data.chunks, (_, row) => BigInt(row));
      index.add(keys, data.vectors.slice(), 0);
      index.save(join(data.dir, 'usearch.index')); // what a new process opens (see reopen)
    },
    vector: async (query) => [...index.search(query.vector, K, 0).keys].map(Number),
    exact: async (query) => [...usearch.exactSearch(data.vectors, query.vector, data.dimensions, K, usearch.MetricKind.Cos).keys].map(Number),
    async close() {},
  };
}
