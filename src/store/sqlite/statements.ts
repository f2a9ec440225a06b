import type Database from 'better-sqlite3';
import { TRIM_TOMBSTONES } from './schema.js';
import { CHUNK_COLUMNS } from '../rows.js';

/** Every statement the SQLite store runs, prepared once per connection. */
/** The store's prepared statements, by name. */
export interface Statements {
  countUnreferenced: Database.Statement;
  deleteUnreferenced: Database.Statement;
  catalogAll: Database.Statement;
  catalogUnder: Database.Statement;
  outline: Database.Statement;
  countUnder: Database.Statement;
  catalogMany: Database.Statement;
  catalogOne: Database.Statement;
  chunkIdsOfPath: Database.Statement;
  deleteTerms: Database.Statement;
  deleteSymbols: Database.Statement;
  insertSymbol: Database.Statement;
  insertTerms: Database.Statement;
  insertTerm: Database.Statement;
  termId: Database.Statement;
  lastTermId: Database.Statement;
  lexiconAfter: Database.Statement;
  lexiconByTerm: Database.Statement;
  lexiconCount: Database.Statement;
  liveRowIds: Database.Statement;
  countChunks: Database.Statement;
  countFiles: Database.Statement;
  chunkDeletions: Database.Statement;
  tombstones: Database.Statement;
  trimTombstones: Database.Statement;
  deleteChunksOfPath: Database.Statement;
  deleteFile: Database.Statement;
  insertChunk: Database.Statement;
  insertVector: Database.Statement;
  upsertFile: Database.Statement;
  touchFile: Database.Statement;
  meta: Database.Statement;
  getMeta: Database.Statement;
  setMeta: Database.Statement;
  cachedVectors: Database.Statement;
  chunksByIds: Database.Statement;
  chunksOfPaths: Database.Statement;
  setFileEmbedder: Database.Statement;
  /** Changes when another connection commits (prepared once: db.pragma() prepares every call). */
  dataVersion: Database.Statement;
  vectorIds: Database.Statement;
  vectorRows: Database.Statement;
  pathsByIds: Database.Statement;
  scanRows: Database.Statement;
}

export function prepareStatements(db: Database.Database): Statements {
  return {
    countUnreferenced: db
      .prepare(`SELECT count(*) FROM embeddings e
      WHERE NOT (e.embedder = ? AND EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = e.content_hash))`)
      .pluck(),
    deleteUnreferenced: db.prepare(`DELETE FROM embeddings WHERE (embedder, content_hash) IN (
      SELECT e.embedder, e.content_hash FROM embeddings e
      WHERE NOT (e.embedder = ? AND EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = e.content_hash))
      ORDER BY e.created_at DESC LIMIT -1 OFFSET ?)`),
    catalogAll: db.prepare('SELECT * FROM files ORDER BY path'),
    catalogUnder: db.prepare('SELECT * FROM files WHERE path >= ? AND path < ? ORDER BY path'),
    outline: db.prepare('SELECT path, start_line, symbol FROM chunks WHERE symbol IS NOT NULL ORDER BY path, start_line').raw(),
    countUnder: db.prepare('SELECT count(*) FROM files WHERE path >= ? AND path < ?').pluck(),
    catalogMany: db.prepare('SELECT * FROM files WHERE path IN (SELECT value FROM json_each(?))'),
    catalogOne: db.prepare('SELECT * FROM files WHERE path = ?'),
    chunkIdsOfPath: db.prepare('SELECT id FROM chunks WHERE path = ?').pluck(),
    deleteTerms: db.prepare('DELETE FROM chunk_terms WHERE chunk = ?'),
    deleteSymbols: db.prepare('DELETE FROM symbol_names WHERE chunk = ?'),
    insertSymbol: db.prepare('INSERT INTO symbol_names (name, chunk) VALUES (?, ?)'),
    insertTerms: db.prepare('INSERT INTO chunk_terms (chunk, data) VALUES (?, ?)'),
    insertTerm: db.prepare('INSERT INTO lexicon (term) VALUES (?) ON CONFLICT(term) DO NOTHING'),
    termId: db.prepare('SELECT id FROM lexicon WHERE term = ?').pluck(),
    lastTermId: db.prepare('SELECT max(id) FROM lexicon').pluck(),
    lexiconAfter: db.prepare('SELECT id, term FROM lexicon WHERE id > ? ORDER BY id').raw(),
    // The UNIQUE index on term, walked: BINARY collation is UTF-8 byte order, no sort.
    lexiconByTerm: db.prepare('SELECT id, term FROM lexicon ORDER BY term').raw(),
    lexiconCount: db.prepare('SELECT count(*) FROM lexicon').pluck(),
    liveRowIds: db.prepare('SELECT id FROM chunks ORDER BY id').pluck(),
    countChunks: db.prepare('SELECT count(*) FROM chunks').pluck(),
    countFiles: db.prepare('SELECT count(*) FROM files').pluck(),
    chunkDeletions: db.prepare("SELECT value FROM meta WHERE key = 'chunk_deletions'").pluck(),
    tombstones: db.prepare('SELECT row_id FROM chunk_tombstones WHERE seq > ? AND seq <= ? ORDER BY seq').pluck(),
    trimTombstones: db.prepare(TRIM_TOMBSTONES),
    deleteChunksOfPath: db.prepare('DELETE FROM chunks WHERE path = ?'),
    deleteFile: db.prepare('DELETE FROM files WHERE path = ?'),
    insertChunk: db.prepare(`INSERT INTO chunks (chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text)
      VALUES (@chunkId, @contentHash, @path, @startLine, @endLine, @language, @kind, @symbol, @symbols, @headingPath, @text)`),
    insertVector: db.prepare('INSERT OR IGNORE INTO embeddings (embedder, content_hash, vector, created_at) VALUES (?, ?, ?, ?)'),
    upsertFile: db.prepare(`INSERT INTO files (path, size, mtime_ms, content_hash, language, chunker, embedder, chunk_count, indexed_at, attributes)
      VALUES (@path, @size, @mtimeMs, @contentHash, @language, @chunker, @embedder, @chunkCount, @indexedAt, @attributes)
      ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, content_hash = excluded.content_hash,
        language = excluded.language, chunker = excluded.chunker, embedder = excluded.embedder,
        chunk_count = excluded.chunk_count, indexed_at = excluded.indexed_at, attributes = excluded.attributes`),
    touchFile: db.prepare('UPDATE files SET size = ?, mtime_ms = ?, indexed_at = ? WHERE path = ?'),
    meta: db.prepare('SELECT key, value FROM meta'),
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
    setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    cachedVectors: db.prepare('SELECT content_hash, vector FROM embeddings WHERE embedder = ? AND content_hash IN (SELECT value FROM json_each(?))'),
    // Rows as arrays (ChunkTuple): no object per row from SQLite (~1.6 µs a row less at 100k chunks).
    chunksByIds: db.prepare(`SELECT ${CHUNK_COLUMNS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))`).raw(true),
    chunksOfPaths: db.prepare('SELECT * FROM chunks WHERE path IN (SELECT value FROM json_each(?)) ORDER BY path, start_line, id'),
    setFileEmbedder: db.prepare('UPDATE files SET embedder = ? WHERE path = ?'),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    vectorIds: db.prepare('SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.embedder = ? AND e.content_hash = c.content_hash').raw(true),
    vectorRows: db.prepare('SELECT c.id, e.vector, c.path, c.language FROM chunks c JOIN embeddings e ON e.embedder = ? AND e.content_hash = c.content_hash').raw(true),
    pathsByIds: db.prepare('SELECT id, path FROM chunks WHERE id IN (SELECT value FROM json_each(?))').raw(true),
    scanRows: db
      .prepare(`SELECT c.id, c.path, c.language, t.data, e.vector, CASE WHEN e.vector IS NULL THEN c.content_hash END FROM chunks c
      JOIN chunk_terms t ON t.chunk = c.id
      LEFT JOIN embeddings e ON e.embedder = ? AND e.content_hash = c.content_hash
      WHERE c.id > ? ORDER BY c.id LIMIT ?`)
      .raw(true),
  };
}
