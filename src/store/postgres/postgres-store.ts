import { sha256Hex } from '../../sources/content-hash.js';
import { matcherForGlobs } from '../path-match.js';
import { decodeTerms } from '../../lexical/codec.js';
import type { CatalogEntry, ChunkRecord, FileWrite, IndexMeta, IndexRow, LexicalQuery, MentionQuery, ScanOptions, ScoredRow, Store, StoreCounts, TermStatistics, VectorQuery } from '../spec.js';
import { deletionSpan, groupOutline, inRequestedOrder, toCatalogEntry, toChunkRecord, type CatalogRow, type ChunkRow } from '../rows.js';
import { createPool, parsePostgresUrl, wrapPgError, type PgClient, type PgPool, type PostgresTarget } from './connection.js';
import { openNamespace, type OpenNamespaceOptions } from './open-namespace.js';
import { PgSession } from './pg-session.js';
import { listStatePg, setMetaPg, updateStatePg } from './pg-state.js';
import { countRowsPg, countsPg } from './pg-counts.js';
import { insertVectors, Lexicon, writeFileGroup } from './pg-write-files.js';
import { decodeVectorSend, filterClause, pgText, quoteIdentifier, quoteLiteral, rankWeights, tsqueryLiteral, vectorLiteral } from './pg-values.js';

export interface PostgresStoreOptions {
  url: string;
  create?: boolean;
  /** Appended to the URL's namespace (memory lives in `<namespace>_memory`). */
  namespaceSuffix?: string;
  onUpgrade?: OpenNamespaceOptions['onUpgrade'];
}

const CHUNK_COLUMNS = 'id, chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text';

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const target = parsePostgresUrl(options.url, options.namespaceSuffix ? { namespaceSuffix: options.namespaceSuffix } : {});
  const pool = await createPool(target);
  try {
    await openNamespace(pool, target, { create: options.create ?? false, ...(options.onUpgrade ? { onUpgrade: options.onUpgrade } : {}) });
    const version = (await pool.query<{ version: string }>('SELECT version() AS version')).rows[0]?.version ?? '';
    return new PostgresStore(target, pool, version.includes('PGlite'));
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
  readonly lexicalRanking = 'ts_rank' as const;
  readonly kind = 'postgres';
  readonly location: string;
  private readonly s: string;
  private readonly lexicon = new Lexicon();
  private readonly session: PgSession;

  constructor(
    private readonly target: PostgresTarget,
    pool: PgPool,
    pinStatements: boolean,
  ) {
    this.location = `${target.display}#${target.namespace}`;
    this.s = quoteIdentifier(target.schema);
    this.session = new PgSession(target, pool, pinStatements, () => this.lexicon.reset());
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
    await this.session.write(async (client) => {
      await this.setMeta(client, 'embedder', embedderId);
      await this.setMeta(client, 'dimensions', String(dimensions));
      if (embedderId !== 'none' && dimensions > 0 && dimensions <= 2000) {
        // One partial HNSW index per embedder (cosine), over the vectors of that embedder only.
        const name = quoteIdentifier(`embeddings_hnsw_${sha256Hex(embedderId).slice(0, 12)}`);
        await client.query(
          `CREATE INDEX IF NOT EXISTS ${name} ON ${this.s}.embeddings USING hnsw ((vector::vector(${dimensions})) vector_cosine_ops)
           WITH (m = 16, ef_construction = 128) WHERE embedder = ${quoteLiteral(embedderId)}`,
        );
      }
    });
  }

  async listCatalog(options: { pathPrefix?: string } = {}): Promise<CatalogEntry[]> {
    const rows = options.pathPrefix
      ? await this.session.rows<CatalogRow>(`SELECT * FROM ${this.s}.files WHERE starts_with(path, $1) ORDER BY path`, [pgText(options.pathPrefix)])
      : await this.session.rows<CatalogRow>(`SELECT * FROM ${this.s}.files ORDER BY path`);
    return rows.map((row) => toCatalogEntry(catalogRow(row)));
  }

  async listOutline(): Promise<Array<{ path: string; symbols: Array<{ name: string; line: number }> }>> {
    const rows = await this.session.rows<{ path: string; start_line: number; symbol: string }>(
      `SELECT path, start_line, symbol FROM ${this.s}.chunks WHERE symbol IS NOT NULL ORDER BY path, start_line`,
    );
    return groupOutline(rows.map((row): [string, number, string] => [row.path, row.start_line, row.symbol]));
  }

  async countCatalog(pathPrefix = ''): Promise<number> {
    const [row] = await this.session.rows<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.files WHERE starts_with(path, $1)`, [pgText(pathPrefix)]);
    return Number(row?.n ?? 0);
  }

  async getCatalogEntry(path: string): Promise<CatalogEntry | undefined> {
    return (await this.getCatalogEntries([path])).get(path);
  }

  async getCatalogEntries(paths: string[]): Promise<Map<string, CatalogEntry>> {
    if (paths.length === 0) return new Map();
    const rows = await this.session.rows<CatalogRow>(`SELECT * FROM ${this.s}.files WHERE path = ANY($1::text[])`, [paths.map(pgText)]);
    return new Map(rows.map((row) => [row.path, toCatalogEntry(catalogRow(row))]));
  }

  async writeFile(write: FileWrite): Promise<void> {
    await this.writeFiles([write]);
  }

  async writeFiles(writes: FileWrite[]): Promise<void> {
    if (writes.length === 0) return;
    // The last write of a path wins, as if they were applied one by one.
    const byPath = new Map(writes.map((write) => [write.entry.path, write]));
    await this.session.write((client) => writeFileGroup(client, this.s, [...byPath.values()], this.lexicon));
  }

  async deleteFiles(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    await this.session.write(async (client) => {
      await client.query(`DELETE FROM ${this.s}.chunks WHERE path = ANY($1::text[])`, [paths.map(pgText)]);
      await client.query(`DELETE FROM ${this.s}.files WHERE path = ANY($1::text[])`, [paths.map(pgText)]);
    });
  }

  async deleteFile(path: string): Promise<void> {
    await this.deleteFiles([path]);
  }

  async touchFile(path: string, size: number, mtimeMs: number): Promise<void> {
    await this.session.write((client) => client.query(`UPDATE ${this.s}.files SET size = $1, mtime_ms = $2, indexed_at = $3 WHERE path = $4`, [size, mtimeMs, Date.now(), pgText(path)]));
  }

  async getCachedVectors(embedderId: string, contentHashes: string[]): Promise<Map<string, Float32Array>> {
    if (contentHashes.length === 0) return new Map();
    const rows = await this.session.rows<{ content_hash: string; vector: Uint8Array }>(
      `SELECT content_hash, vector_send(vector) AS vector FROM ${this.s}.embeddings WHERE embedder = $1 AND content_hash = ANY($2::text[])`,
      [embedderId, contentHashes],
    );
    return new Map(rows.map((row) => [row.content_hash, decodeVectorSend(row.vector)]));
  }

  async putCachedVectors(embedderId: string, vectors: Map<string, Float32Array>): Promise<void> {
    if (vectors.size === 0) return;
    const now = Date.now();
    await this.session.write((client) =>
      insertVectors(
        client,
        this.s,
        [...vectors].map(([hash, vector]) => [embedderId, hash, vectorLiteral(vector)]),
        now,
      ),
    );
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
    return this.session.rows<ScoredRow>(
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
      const rows = await this.session.withClient(async (client) => {
        await client.query(`SET hnsw.ef_search = ${Math.max(this.target.efSearch, candidates)}`);
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
    const rows = await this.session.rows<ScoredRow>(
      `SELECT c.id AS "rowId", 1 - (e.vector <=> $1::vector) AS score, c.path AS path
       FROM ${this.s}.chunks c JOIN ${this.s}.embeddings e ON e.embedder = $2 AND e.content_hash = c.content_hash
       WHERE vector_dims(e.vector) = $3${where ? ` AND ${where}` : ''} ORDER BY e.vector <=> $1::vector, c.id LIMIT $${params.length}`,
      params,
    );
    return rows.map(scoredRow);
  }

  async getChunks(rowIds: number[]): Promise<ChunkRecord[]> {
    if (rowIds.length === 0) return [];
    const rows = await this.session.rows<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${this.s}.chunks WHERE id = ANY($1::int[])`, [rowIds]);
    return inRequestedOrder(rowIds, rows);
  }

  async listChunks(paths: string[]): Promise<ChunkRecord[]> {
    if (paths.length === 0) return [];
    const rows = await this.session.rows<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${this.s}.chunks WHERE path = ANY($1::text[]) ORDER BY path, start_line, id`, [paths.map(pgText)]);
    return rows.map(toChunkRecord);
  }

  async setFileEmbedder(paths: string[], embedderId: string): Promise<void> {
    if (paths.length === 0) return;
    await this.session.write((client) => client.query(`UPDATE ${this.s}.files SET embedder = $1 WHERE path = ANY($2::text[])`, [embedderId, paths.map(pgText)]));
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
    return this.session.rows<ScoredRow>(
      `SELECT c.id AS "rowId", 1.0::float8 AS score, c.path AS path FROM ${this.s}.chunks c
       WHERE (${conditions.join(' OR ')})${where ? ` AND ${where}` : ''} ORDER BY c.id LIMIT $${params.length}`,
      params,
    );
  }

  async changeToken(): Promise<string> {
    return (await this.meta()).get('write_seq') ?? '0';
  }

  async scanIndexRows(options: ScanOptions): Promise<IndexRow[]> {
    const rows = await this.session.rows<{ id: number; path: string; language: string; terms: Uint8Array; vector: Uint8Array | null; content_hash: string | null }>(
      `SELECT c.id, c.path, c.language, c.terms, vector_send(e.vector) AS vector, CASE WHEN e.vector IS NULL THEN c.content_hash END AS content_hash FROM ${this.s}.chunks c
       LEFT JOIN ${this.s}.embeddings e ON e.embedder = $1 AND e.content_hash = c.content_hash
       WHERE c.id > $2 ORDER BY c.id LIMIT $3`,
      [options.embedderId ?? '', options.afterRowId ?? 0, options.limit ?? null],
    );
    return rows.map((row) => {
      const indexRow: IndexRow = { rowId: row.id, path: row.path, language: row.language, terms: decodeTerms(row.terms) };
      if (row.vector) indexRow.vector = decodeVectorSend(row.vector);
      else if (row.content_hash) indexRow.contentHash = row.content_hash;
      return indexRow;
    });
  }

  async termStatistics(terms: string[]): Promise<TermStatistics> {
    const unique = [...new Set(terms)];
    const frequencies = new Map<string, number>();
    const counted = unique.flatMap((term) => {
      const tsquery = tsqueryLiteral([term]);
      if (!tsquery) frequencies.set(term, 0);
      return tsquery ? [[term, tsquery] as const] : [];
    });
    const [total] = await this.session.rows<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.chunks`);
    if (counted.length > 0) {
      const rows = await this.session.rows<{ i: number; n: string }>(
        `SELECT q.i, (SELECT count(*) FROM ${this.s}.chunks c WHERE c.tsv @@ q.query::tsquery) AS n
         FROM unnest($1::text[]) WITH ORDINALITY AS q(query, i)`,
        [counted.map(([, tsquery]) => tsquery)],
      );
      for (const row of rows) frequencies.set((counted[Number(row.i) - 1] as readonly [string, string])[0], Number(row.n));
    }
    return { chunks: Number(total?.n ?? 0), frequencies };
  }

  async languages(): Promise<Map<string, number>> {
    const rows = await this.session.rows<{ language: string; chunks: string | number }>(`SELECT language, SUM(chunk_count) AS chunks FROM ${this.s}.files GROUP BY language ORDER BY language`);
    return new Map(rows.map((row) => [row.language, Number(row.chunks)]));
  }

  async countChunks(): Promise<number> {
    const [row] = await this.session.rows<{ n: string }>(`SELECT count(*) AS n FROM ${this.s}.chunks`);
    return Number(row?.n ?? 0);
  }

  async chunkDeletions(): Promise<number | undefined> {
    const [row] = await this.session.rows<{ value: string }>(`SELECT value FROM ${this.s}.meta WHERE key = 'chunk_deletions'`);
    const value = Number(row?.value);
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  }

  deletedRowIds(after: number, upTo: number): Promise<Int32Array | undefined> {
    return deletionSpan(after, upTo, async () =>
      (await this.session.rows<{ row_id: number }>(`SELECT row_id FROM ${this.s}.chunk_tombstones WHERE seq > $1 AND seq <= $2 ORDER BY seq`, [after, upTo])).map((row) => row.row_id),
    );
  }

  async liveRowIds(): Promise<Int32Array> {
    const rows = await this.session.rows<{ id: number }>(`SELECT id FROM ${this.s}.chunks ORDER BY id`);
    return Int32Array.from(rows, (row) => row.id);
  }

  async readLexicon(afterId: number): Promise<Array<[number, string]>> {
    const rows = await this.session.rows<{ id: number; term: string }>(`SELECT id, term FROM ${this.s}.lexicon WHERE id > $1 ORDER BY id`, [afterId]);
    return rows.map((row) => [row.id, row.term]);
  }

  async readState(key: string): Promise<string | undefined> {
    return (await this.meta()).get(`state:${key}`);
  }

  async writeState(key: string, value: string): Promise<void> {
    await this.session.write((client) => this.setMeta(client, `state:${key}`, pgText(value)));
  }

  updateState(key: string, update: (current: string | undefined) => string | undefined): Promise<string | undefined> {
    return updateStatePg(this.session, this.s, key, update);
  }

  listState(): Promise<Array<[string, string]>> {
    return listStatePg(this.session, this.s);
  }

  countRows(): Promise<{ files: number; chunks: number }> {
    return countRowsPg(this.session, this.s);
  }

  counts(): Promise<StoreCounts> {
    return countsPg(this.session, this.s, this.target.schema);
  }

  async collectGarbage(options: { keepUnreferenced: number; compact?: boolean; truncateLog?: boolean }): Promise<{ removedVectors: number; keptUnreferenced: number }> {
    const result = await this.session.write(async (client) => {
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
      for (const table of ['chunks', 'embeddings', 'symbol_names', 'files', 'lexicon']) await this.session.rows(`VACUUM ${this.s}.${table}`);
    }
    return result;
  }

  async close(): Promise<void> {
    await this.session.close();
  }

  private async globPaths(globs: string[] | undefined): Promise<string[] | undefined> {
    if (!globs || globs.length === 0) return undefined;
    const matches = matcherForGlobs(JSON.stringify(globs));
    const rows = await this.session.rows<{ path: string }>(`SELECT path FROM ${this.s}.files`);
    return rows.map((row) => row.path).filter((path) => matches(path));
  }

  private async meta(): Promise<Map<string, string>> {
    const rows = await this.session.rows<{ key: string; value: string }>(`SELECT key, value FROM ${this.s}.meta`);
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  private setMeta(client: PgClient, key: string, value: string): Promise<void> {
    return setMetaPg(client, this.s, key, value);
  }
}

function scoredRow(row: ScoredRow): ScoredRow {
  return { rowId: row.rowId, score: Number(row.score), path: row.path };
}

function catalogRow(row: CatalogRow): CatalogRow {
  return { ...row, size: Number(row.size), indexed_at: Number(row.indexed_at), mtime_ms: Number(row.mtime_ms) };
}
