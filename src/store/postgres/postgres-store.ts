import { sha256Hex } from '../../indexing/hash.js';
import { LociError } from '../../errors/index.js';
import { matcherForGlobs } from '../../retrieve/path-match.js';
import { decodeTerms, encodeTerms } from '../lexical-codec.js';
import type {
  CatalogEntry,
  ChunkRecord,
  FileWrite,
  IndexMeta,
  IndexRow,
  LexicalQuery,
  MentionQuery,
  ScanOptions,
  ScoredRow,
  Store,
  StoreCounts,
  VectorQuery,
} from '../spec.js';
import { symbolKeys, toCatalogEntry, toChunkRecord, type CatalogRow, type ChunkRow } from '../sqlite/rows.js';
import { createPool, parsePostgresUrl, wrapPgError, type PgClient, type PgPool, type PostgresTarget } from './connection.js';
import { openNamespace } from './open-namespace.js';
import { decodeVectorSend, filterClause, pgText, quoteIdentifier, quoteLiteral, rankWeights, tsqueryLiteral, tsvectorLiteral, vectorLiteral } from './pg-values.js';

export interface PostgresStoreOptions {
  url: string;
  create?: boolean;
  /** Appended to the URL's namespace (memory lives in `<namespace>_memory`). */
  namespaceSuffix?: string;
}

const CHUNK_COLUMNS = 'id, chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text';

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const target = parsePostgresUrl(options.url, options.namespaceSuffix ? { namespaceSuffix: options.namespaceSuffix } : {});
  const pool = await createPool(target);
  try {
    await openNamespace(pool, target, { create: options.create ?? false });
    const version = (await pool.query<{ version: string }>('SELECT version() AS version')).rows[0]?.version ?? '';
    return new PostgresStore(target, pool, target.efSearch, version.includes('PGlite'));
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw wrapPgError(error, target);
  }
}

/**
 * The PostgreSQL + pgvector adapter. Every write transaction first takes the namespace's
 * advisory lock, so several indexers on several machines can write at once: their commits
 * are serialised (no duplicate rows, ids in commit order), their reading, parsing and
 * embedding still run in parallel.
 */
class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly location: string;
  private readonly s: string;
  private termIds = new Map<string, number>();

  constructor(
    private readonly target: PostgresTarget,
    private readonly pool: PgPool,
    private readonly efSearch: number,
    /**
     * PGlite's socket server runs every connection on one session and keeps a connection's
     * messages together only inside a transaction (electric-sql/pglite#1046): parameterised
     * statements from two connections could interleave. Against PGlite every statement with
     * parameters therefore runs inside a transaction; real servers skip this.
     */
    private readonly pinStatements: boolean,
  ) {
    this.location = `${target.display}#${target.namespace}`;
    this.s = quoteIdentifier(target.schema);
  }

  async getMeta(): Promise<IndexMeta> {
    const meta = await this.meta();
    return {
      schemaVersion: Number(meta.get('schema_version')),
      embedderId: meta.get('embedder') ?? 'none',
      dimensions: Number(meta.get('dimensions') ?? 0),
      createdAt: Number(meta.get('created_at') ?? 0),
      createdBy: meta.get('created_by') ?? 'unknown',
    };
  }

  async setEmbedder(embedderId: string, dimensions: number): Promise<void> {
    await this.write(async (client) => {
      await this.setMeta(client, 'embedder', embedderId);
      await this.setMeta(client, 'dimensions', String(dimensions));
      if (embedderId !== 'none' && dimensions > 0 && dimensions <= 2000) {
        // One partial HNSW index per embedder (cosine), over the vectors of that embedder only.
        const name = quoteIdentifier(`embeddings_hnsw_${sha256Hex(embedderId).slice(0, 12)}`);
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${name} ON ${this.s}.embeddings USING hnsw ((vector::vector(${dimensions})) vector_cosine_ops)
           WITH (m = 16, ef_construction = 64) WHERE embedder = ${quoteLiteral(embedderId)}`,
        );
      }
    });
  }

  async listCatalog(options: { pathPrefix?: string } = {}): Promise<CatalogEntry[]> {
    const rows = options.pathPrefix
      ? await this.rows<CatalogRow>(`SELECT * FROM ${this.s}.files WHERE starts_with(path, $1) ORDER BY path`, [pgText(options.pathPrefix)])
      : await this.rows<CatalogRow>(`SELECT * FROM ${this.s}.files ORDER BY path`);
    return rows.map((row) => toCatalogEntry(catalogRow(row)));
  }

  async listOutline(): Promise<Array<{ path: string; symbols: Array<{ name: string; line: number }> }>> {
    const rows = await this.rows<{ path: string; start_line: number; symbol: string }>(
      `SELECT path, start_line, symbol FROM ${this.s}.chunks WHERE symbol IS NOT NULL ORDER BY path, start_line`,
    );
    const byPath = new Map<string, Array<{ name: string; line: number }>>();
    for (const { path, start_line: line, symbol: name } of rows) {
      let symbols = byPath.get(path);
      if (!symbols) byPath.set(path, (symbols = []));
      if (!symbols.some((symbol) => symbol.name === name)) symbols.push({ name, line });
    }
    return [...byPath].map(([path, symbols]) => ({ path, symbols }));
  }

  async countCatalog(pathPrefix = ''): Promise<number> {
    const [row] = await this.rows<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.files WHERE starts_with(path, $1)`, [pgText(pathPrefix)]);
    return Number(row?.n ?? 0);
  }

  async getCatalogEntry(path: string): Promise<CatalogEntry | undefined> {
    return (await this.getCatalogEntries([path])).get(path);
  }

  async getCatalogEntries(paths: string[]): Promise<Map<string, CatalogEntry>> {
    if (paths.length === 0) return new Map();
    const rows = await this.rows<CatalogRow>(`SELECT * FROM ${this.s}.files WHERE path = ANY($1::text[])`, [paths.map(pgText)]);
    return new Map(rows.map((row) => [row.path, toCatalogEntry(catalogRow(row))]));
  }

  async writeFile(write: FileWrite): Promise<void> {
    await this.writeFiles([write]);
  }

  async writeFiles(writes: FileWrite[]): Promise<void> {
    if (writes.length === 0) return;
    // The last write of a path wins, as if they were applied one by one.
    const byPath = new Map(writes.map((write) => [write.entry.path, write]));
    await this.write(async (client) => {
      const files = [...byPath.values()];
      await client.query(`DELETE FROM ${this.s}.chunks WHERE path = ANY($1::text[])`, [files.map((write) => pgText(write.entry.path))]);
      const chunks = files.flatMap((write) => write.chunks.map((chunk) => ({ write, chunk })));
      const ids = await this.termIdsFor(client, chunks.map(({ chunk }) => chunk.termStats.terms.keys()));
      const now = Date.now();
      if (chunks.length > 0) {
        const column = <T>(pick: (item: (typeof chunks)[number]) => T) => chunks.map(pick);
        const inserted = await client.query<{ id: number; ord: string }>(
          `INSERT INTO ${this.s}.chunks (chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text, tsv, terms)
           SELECT u.chunk_id, u.content_hash, u.path, u.start_line, u.end_line, u.language, u.kind, u.symbol, u.symbols, u.heading_path, u.text, u.tsv::tsvector, u.terms
           FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bytea[])
             WITH ORDINALITY AS u(chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text, tsv, terms, ord)
           ORDER BY u.ord
           RETURNING id`,
          [
            column(({ chunk }) => chunk.chunkId),
            column(({ chunk }) => chunk.contentHash),
            column(({ write }) => pgText(write.entry.path)),
            column(({ chunk }) => chunk.startLine),
            column(({ chunk }) => chunk.endLine),
            column(({ chunk }) => chunk.language),
            column(({ chunk }) => chunk.kind),
            column(({ chunk }) => chunk.symbol ?? null),
            column(({ chunk }) => JSON.stringify(chunk.symbols ?? [])),
            column(({ chunk }) => JSON.stringify(chunk.headingPath ?? [])),
            column(({ chunk }) => (typeof chunk.text === 'string' ? pgText(chunk.text) : chunk.text)),
            column(({ chunk }) => tsvectorLiteral(chunk.lexical)),
            column(({ chunk }) => Buffer.from(encodeTerms(chunk.termStats, (term) => ids.get(term) as number))),
          ],
        );
        // Identity values follow the insertion order (ORDER BY ord), so the nth id is the nth chunk's.
        const rowIds = inserted.rows.map((row) => row.id).sort((a, b) => a - b);
        const names: string[] = [];
        const owners: number[] = [];
        chunks.forEach(({ chunk }, index) => {
          for (const name of symbolKeys(chunk.symbols ?? (chunk.symbol ? [chunk.symbol] : []))) {
            names.push(name);
            owners.push(rowIds[index] as number);
          }
        });
        if (names.length > 0) await client.query(`INSERT INTO ${this.s}.symbol_names (name, chunk) SELECT * FROM unnest($1::text[], $2::int[])`, [names, owners]);
        const vectors = new Map<string, [string, string]>();
        for (const { write, chunk } of chunks) if (chunk.vector) vectors.set(`${write.entry.embedder}\n${chunk.contentHash}`, [write.entry.embedder, chunk.contentHash]);
        if (vectors.size > 0) {
          const literals = new Map<string, string>();
          for (const { write, chunk } of chunks) if (chunk.vector) literals.set(`${write.entry.embedder}\n${chunk.contentHash}`, vectorLiteral(chunk.vector));
          await this.insertVectors(client, [...vectors].map(([key, [embedder, hash]]) => [embedder, hash, literals.get(key) as string]), now);
        }
      }
      await client.query(
        `INSERT INTO ${this.s}.files (path, size, mtime_ms, content_hash, language, chunker, embedder, chunk_count, indexed_at, attributes)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::bigint[], $10::text[])
         ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, content_hash = excluded.content_hash,
           language = excluded.language, chunker = excluded.chunker, embedder = excluded.embedder,
           chunk_count = excluded.chunk_count, indexed_at = excluded.indexed_at, attributes = excluded.attributes`,
        [
          files.map((write) => pgText(write.entry.path)),
          files.map((write) => write.entry.size),
          files.map((write) => write.entry.mtimeMs),
          files.map((write) => write.entry.contentHash),
          files.map((write) => write.entry.language),
          files.map((write) => write.entry.chunker),
          files.map((write) => write.entry.embedder),
          files.map((write) => write.chunks.length),
          files.map((write) => write.entry.indexedAt),
          files.map((write) => (write.entry.attributes !== undefined ? pgText(write.entry.attributes) : null)),
        ],
      );
    });
  }

  async deleteFiles(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.write(async (client) => {
      await client.query(`DELETE FROM ${this.s}.chunks WHERE path = ANY($1::text[])`, [paths.map(pgText)]);
      await client.query(`DELETE FROM ${this.s}.files WHERE path = ANY($1::text[])`, [paths.map(pgText)]);
    });
  }

  async deleteFile(path: string): Promise<void> {
    await this.deleteFiles([path]);
  }

  async touchFile(path: string, size: number, mtimeMs: number): Promise<void> {
    await this.write((client) => client.query(`UPDATE ${this.s}.files SET size = $1, mtime_ms = $2 WHERE path = $3`, [size, mtimeMs, pgText(path)]));
  }

  async getCachedVectors(embedderId: string, contentHashes: string[]): Promise<Map<string, Float32Array>> {
    if (contentHashes.length === 0) return new Map();
    const rows = await this.rows<{ content_hash: string; vector: Uint8Array }>(
      `SELECT content_hash, vector_send(vector) AS vector FROM ${this.s}.embeddings WHERE embedder = $1 AND content_hash = ANY($2::text[])`,
      [embedderId, contentHashes],
    );
    return new Map(rows.map((row) => [row.content_hash, decodeVectorSend(row.vector)]));
  }

  async putCachedVectors(embedderId: string, vectors: Map<string, Float32Array>): Promise<void> {
    if (vectors.size === 0) return;
    const now = Date.now();
    await this.write((client) => this.insertVectors(client, [...vectors].map(([hash, vector]) => [embedderId, hash, vectorLiteral(vector)]), now));
  }

  /**
   * The cold lexical path: Postgres full text over the same code-aware tokens, ranked by
   * ts_rank with the field weights. (Warm engines rank with BM25 in memory, from `terms`.)
   */
  async searchLexical(query: LexicalQuery): Promise<ScoredRow[]> {
    const tsquery = tsqueryLiteral(query.terms);
    if (!tsquery || query.limit <= 0) return [];
    const params: unknown[] = [rankWeights(query.weights), tsquery];
    const where = filterClause(query.filter, params, await this.globPaths(query.filter?.pathGlobs));
    params.push(query.limit);
    return this.rows<ScoredRow>(
      `SELECT c.id AS "rowId", ts_rank($1::float4[], c.tsv, $2::tsquery, 1) AS score, c.path AS path FROM ${this.s}.chunks c
       WHERE c.tsv @@ $2::tsquery${where ? ` AND ${where}` : ''} ORDER BY score DESC, c.id LIMIT $${params.length}`,
      params,
    );
  }

  /**
   * Unfiltered: the embedder's HNSW index picks candidates, over-fetched since cached
   * vectors of other branches share the index; filtered (or when candidates run short):
   * an exact scan of the matching chunks.
   */
  async searchVectors(query: VectorQuery): Promise<ScoredRow[]> {
    if (query.limit <= 0) return [];
    const meta = await this.meta();
    const dimensions = query.vector.length;
    const literal = vectorLiteral(query.vector);
    if (!query.filter && meta.get('embedder') === query.embedderId && Number(meta.get('dimensions')) === dimensions) {
      const candidates = Math.max(query.limit * 4, 100);
      const rows = await this.withClient(async (client) => {
        await client.query(`SET hnsw.ef_search = ${Math.max(this.efSearch, candidates)}`);
        return client.query<ScoredRow>(
          `WITH nearest AS (
             SELECT e.content_hash, e.vector::vector(${dimensions}) <=> $1::vector(${dimensions}) AS distance FROM ${this.s}.embeddings e
             WHERE e.embedder = ${quoteLiteral(query.embedderId)} ORDER BY distance LIMIT ${candidates})
           SELECT c.id AS "rowId", 1 - n.distance AS score, c.path AS path FROM nearest n JOIN ${this.s}.chunks c ON c.content_hash = n.content_hash
           ORDER BY n.distance, c.id LIMIT $2`,
          [literal, query.limit],
        );
      }, true);
      if (rows.rows.length >= query.limit || rows.rows.length === (await this.countChunks())) return rows.rows.map(scoredRow);
    }
    const params: unknown[] = [literal, query.embedderId, dimensions];
    const where = filterClause(query.filter, params, await this.globPaths(query.filter?.pathGlobs));
    params.push(query.limit);
    const rows = await this.rows<ScoredRow>(
      `SELECT c.id AS "rowId", 1 - (e.vector <=> $1::vector) AS score, c.path AS path
       FROM ${this.s}.chunks c JOIN ${this.s}.embeddings e ON e.embedder = $2 AND e.content_hash = c.content_hash
       WHERE vector_dims(e.vector) = $3${where ? ` AND ${where}` : ''} ORDER BY e.vector <=> $1::vector, c.id LIMIT $${params.length}`,
      params,
    );
    return rows.map(scoredRow);
  }

  async getChunks(rowIds: number[]): Promise<ChunkRecord[]> {
    if (rowIds.length === 0) return [];
    const rows = await this.rows<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${this.s}.chunks WHERE id = ANY($1::int[])`, [rowIds]);
    const byId = new Map(rows.map((row) => [row.id, toChunkRecord(row)]));
    return rowIds.flatMap((id) => {
      const record = byId.get(id);
      return record ? [record] : [];
    });
  }

  async findMentions(query: MentionQuery): Promise<ScoredRow[]> {
    if ((query.symbols.length === 0 && query.paths.length === 0) || query.limit <= 0) return [];
    const params: unknown[] = [];
    const conditions: string[] = [];
    if (query.symbols.length > 0) {
      params.push(query.symbols.map((symbol) => pgText(symbol.toLowerCase())));
      conditions.push(`c.id IN (SELECT chunk FROM ${this.s}.symbol_names WHERE name = ANY($${params.length}::text[]))`);
    }
    for (const path of query.paths) {
      const clean = pgText(path.replace(/\\/g, '/').replace(/^\.?\//, ''));
      params.push(clean, `%/${clean.replace(/[!%_]/g, (character) => `!${character}`)}`);
      conditions.push(`(c.path = $${params.length - 1} OR c.path LIKE $${params.length} ESCAPE '!')`);
    }
    const where = filterClause(query.filter, params, await this.globPaths(query.filter?.pathGlobs));
    params.push(query.limit);
    return this.rows<ScoredRow>(
      `SELECT c.id AS "rowId", 1.0::float8 AS score, c.path AS path FROM ${this.s}.chunks c
       WHERE (${conditions.join(' OR ')})${where ? ` AND ${where}` : ''} ORDER BY c.id LIMIT $${params.length}`,
      params,
    );
  }

  async changeToken(): Promise<string> {
    return (await this.meta()).get('write_seq') ?? '0';
  }

  async scanIndexRows(options: ScanOptions): Promise<IndexRow[]> {
    const rows = await this.rows<{ id: number; path: string; language: string; terms: Uint8Array; vector: Uint8Array | null }>(
      `SELECT c.id, c.path, c.language, c.terms, vector_send(e.vector) AS vector FROM ${this.s}.chunks c
       LEFT JOIN ${this.s}.embeddings e ON e.embedder = $1 AND e.content_hash = c.content_hash
       WHERE c.id > $2 ORDER BY c.id LIMIT $3`,
      [options.embedderId ?? '', options.afterRowId ?? 0, options.limit ?? null],
    );
    return rows.map((row) => {
      const indexRow: IndexRow = { rowId: row.id, path: row.path, language: row.language, terms: decodeTerms(row.terms) };
      if (row.vector) indexRow.vector = decodeVectorSend(row.vector);
      return indexRow;
    });
  }

  async countChunks(): Promise<number> {
    const [row] = await this.rows<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.chunks`);
    return Number(row?.n ?? 0);
  }

  async liveRowIds(): Promise<Int32Array> {
    const rows = await this.rows<{ id: number }>(`SELECT id FROM ${this.s}.chunks ORDER BY id`);
    return Int32Array.from(rows, (row) => row.id);
  }

  async readLexicon(afterId: number): Promise<Array<[number, string]>> {
    const rows = await this.rows<{ id: number; term: string }>(`SELECT id, term FROM ${this.s}.lexicon WHERE id > $1 ORDER BY id`, [afterId]);
    return rows.map((row) => [row.id, row.term]);
  }

  async readState(key: string): Promise<string | undefined> {
    return (await this.meta()).get(`state:${key}`);
  }

  async writeState(key: string, value: string): Promise<void> {
    await this.write((client) => this.setMeta(client, `state:${key}`, pgText(value)));
  }

  async listState(): Promise<Array<[string, string]>> {
    const rows = await this.rows<{ key: string; value: string }>(`SELECT key, value FROM ${this.s}.meta WHERE starts_with(key, 'state:') ORDER BY key COLLATE "C"`);
    return rows.map((row) => [row.key.slice('state:'.length), row.value]);
  }

  async counts(): Promise<StoreCounts> {
    const [row] = await this.rows<Record<string, string>>(
      `SELECT (SELECT count(*) FROM ${this.s}.files) AS files, (SELECT count(*) FROM ${this.s}.chunks) AS chunks,
         (SELECT count(*) FROM ${this.s}.chunks c JOIN ${this.s}.embeddings e ON e.content_hash = c.content_hash
            AND e.embedder = (SELECT value FROM ${this.s}.meta WHERE key = 'embedder')) AS vectors,
         (SELECT count(*) FROM ${this.s}.embeddings) AS cached,
         (SELECT coalesce(sum(pg_total_relation_size(k.oid)), 0) FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace
            WHERE n.nspname = $1 AND k.relkind = 'r') AS bytes`,
      [this.target.schema],
    );
    return {
      files: Number(row?.files ?? 0),
      chunks: Number(row?.chunks ?? 0),
      vectors: Number(row?.vectors ?? 0),
      cachedEmbeddings: Number(row?.cached ?? 0),
      bytesOnDisk: Number(row?.bytes ?? 0),
    };
  }

  async collectGarbage(options: { keepUnreferenced: number; compact?: boolean }): Promise<{ removedVectors: number; keptUnreferenced: number }> {
    const result = await this.write(async (client) => {
      const unreferenced = `SELECT e.embedder, e.content_hash FROM ${this.s}.embeddings e
        WHERE NOT (e.embedder = (SELECT value FROM ${this.s}.meta WHERE key = 'embedder')
          AND EXISTS (SELECT 1 FROM ${this.s}.chunks c WHERE c.content_hash = e.content_hash))`;
      const removed = await client.query(
        `DELETE FROM ${this.s}.embeddings WHERE (embedder, content_hash) IN (
           SELECT u.embedder, u.content_hash FROM (${unreferenced}) u JOIN ${this.s}.embeddings e USING (embedder, content_hash)
           ORDER BY e.created_at DESC, u.content_hash OFFSET $1)`,
        [Math.max(0, options.keepUnreferenced)],
      );
      const kept = await client.query<{ n: string }>(`SELECT count(*) AS n FROM (${unreferenced}) u`);
      return { removedVectors: removed.rowCount ?? 0, keptUnreferenced: Number(kept.rows[0]?.n ?? 0) };
    });
    if (options.compact) {
      for (const table of ['chunks', 'embeddings', 'symbol_names', 'files', 'lexicon']) await this.rows(`VACUUM ${this.s}.${table}`);
    }
    return result;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private async insertVectors(client: PgClient, rows: Array<[string, string, string]>, now: number): Promise<void> {
    await client.query(
      `INSERT INTO ${this.s}.embeddings (embedder, content_hash, vector, created_at)
       SELECT u.embedder, u.hash, u.vector::vector, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS u(embedder, hash, vector)
       ON CONFLICT (embedder, content_hash) DO NOTHING`,
      [rows.map((row) => row[0]), rows.map((row) => row[1]), rows.map((row) => row[2]), now],
    );
  }

  /** Runs inside a write transaction: new terms get their ids in the same commit. */
  private async termIdsFor(client: PgClient, termLists: Iterable<Iterable<string>>): Promise<Map<string, number>> {
    const missing = new Set<string>();
    for (const terms of termLists) for (const term of terms) if (!this.termIds.has(term)) missing.add(term);
    if (missing.size > 0) {
      const terms = [...missing].map(pgText);
      await client.query(`INSERT INTO ${this.s}.lexicon (term) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (term) DO NOTHING`, [terms]);
      const rows = await client.query<{ id: number; term: string }>(`SELECT id, term FROM ${this.s}.lexicon WHERE term = ANY($1::text[])`, [terms]);
      const found = new Map(rows.rows.map((row) => [row.term, row.id]));
      for (const term of missing) {
        const id = found.get(pgText(term));
        if (id === undefined) throw new LociError('INTERNAL', `Lexicon term "${term.slice(0, 40)}" was not stored.`);
        this.termIds.set(term, id);
      }
    }
    return this.termIds;
  }

  private async globPaths(globs: string[] | undefined): Promise<string[] | undefined> {
    if (!globs || globs.length === 0) return undefined;
    const matches = matcherForGlobs(JSON.stringify(globs));
    const rows = await this.rows<{ path: string }>(`SELECT path FROM ${this.s}.files`);
    return rows.map((row) => row.path).filter((path) => matches(path));
  }

  private async meta(): Promise<Map<string, string>> {
    const rows = await this.rows<{ key: string; value: string }>(`SELECT key, value FROM ${this.s}.meta`);
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  private async setMeta(client: PgClient, key: string, value: string): Promise<void> {
    await client.query(`INSERT INTO ${this.s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, value]);
  }

  private async rows<Row>(sql: string, params: unknown[] = []): Promise<Row[]> {
    if (this.pinStatements && params.length > 0) return this.withClient(async (client) => (await client.query<Row>(sql, params)).rows, true);
    try {
      return (await this.pool.query<Row>(sql, params)).rows;
    } catch (error) {
      throw wrapPgError(error, this.target);
    }
  }

  private async withClient<T>(action: (client: PgClient) => Promise<T>, pinned = false): Promise<T> {
    let client: PgClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw wrapPgError(error, this.target);
    }
    const transaction = pinned && this.pinStatements;
    try {
      if (transaction) await client.query('BEGIN');
      const result = await action(client);
      if (transaction) await client.query('COMMIT');
      return result;
    } catch (error) {
      if (transaction) await client.query('ROLLBACK').catch(() => undefined);
      throw wrapPgError(error, this.target);
    } finally {
      client.release();
    }
  }

  /** One transaction holding the namespace's advisory lock; every write bumps write_seq. */
  private async write<T>(action: (client: PgClient) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.target.schema]);
        const result = await action(client);
        await client.query(`UPDATE ${this.s}.meta SET value = (value::bigint + 1)::text WHERE key = 'write_seq'`);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // Term ids cached during a rolled-back transaction were never committed.
        this.termIds = new Map();
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }
}

function scoredRow(row: ScoredRow): ScoredRow {
  return { rowId: row.rowId, score: Number(row.score), path: row.path };
}

function catalogRow(row: CatalogRow): CatalogRow {
  return { ...row, size: Number(row.size), indexed_at: Number(row.indexed_at), mtime_ms: Number(row.mtime_ms) };
}
