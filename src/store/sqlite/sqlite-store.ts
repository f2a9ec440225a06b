import { statSync } from 'node:fs';
import { LociError } from '../../errors/index.js';
import type Database from 'better-sqlite3';
import { decodeTerms } from '../../lexical/codec.js';
import type { CatalogEntry, ChunkRecord, FileWrite, IndexMeta, IndexRow, MentionQuery, ScanOptions, ScoredRow, Store, StoreCounts, StoreUpgradeListener, VectorQuery } from '../spec.js';
import { findMentionsSql } from './queries.js';
import { sqliteLanguages } from './ranking-stats.js';
import { deletionSpan, groupOutline, packedTerms, recordsInOrder, toCatalogEntry, toChunkRecord, tupleToChunkRecord, type CatalogRow, type ChunkRow, type ChunkTuple } from '../rows.js';
import { prepareStatements, type Statements } from './statements.js';
import { openDatabase, wrapSqliteError } from './open-database.js';
import { assertQuickCheck } from './damaged-store.js';
import { decodeVector, encodeVector } from './vector-codec.js';
import { scanVectors } from './vector-scan.js';
import { TokenCache } from '../token-cache.js';
import { RowWriter } from './row-writer.js';
import { FileIdentity } from './file-identity.js';
import { endBulk, ensureContentIndex, startBulk } from './bulk-mode.js';

export interface SqliteStoreOptions {
  /** Path of the database file. */
  file: string;
  /** Create it if missing (indexing); otherwise a missing store is INDEX_NOT_FOUND. */
  create?: boolean;
  /** Catalog entries kept between writes (default 50,000; 0 keeps none, for callers that keep their own). */
  keepCatalogEntries?: number;
  /** Run PRAGMA quick_check on open (default: when `create`, i.e. opening to write). */
  quickCheck?: boolean;
  /** Told just before an older schema is migrated (a writable open; a read-only one refuses instead). */
  onUpgrade?: StoreUpgradeListener;
}

export function openSqliteStore(options: SqliteStoreOptions): Store {
  const database = openDatabase({
    file: options.file,
    create: options.create ?? false,
    ...(options.quickCheck !== undefined ? { quickCheck: options.quickCheck } : {}),
    ...(options.onUpgrade ? { onUpgrade: options.onUpgrade } : {}),
  });
  return new SqliteStore(options.file, database, options.keepCatalogEntries ?? 50_000);
}

/**
 * SQLite keeps each chunk's lexical form once, as term statistics (`chunk_terms`, ids into
 * `lexicon`): the form loci's own BM25 index reads. It has no full-text table of its own
 * (schema 2 dropped FTS5), so searches go through the warm index and its segment file.
 */
class SqliteStore implements Store {
  readonly kind = 'sqlite';
  private readonly statements: Statements;
  private readonly rows: RowWriter;
  private writes = 0;
  /** Runs between bulkWrites(true) and bulkWrites(false). */
  private bulkRuns = 0;
  /** Catalog-only writes (no chunks change): they move the catalog cache's token, not changeToken. */
  private touches = 0;
  /** Catalog entries (frozen: callers share them); searches ask for the same files again and again. */
  private readonly catalogCache: TokenCache<Readonly<CatalogEntry>> | undefined;
  /** The file opened: a store deleted or replaced under this process is refused, not written into the void. */
  private readonly identity: FileIdentity;

  constructor(
    readonly location: string,
    private readonly db: Database.Database,
    keepCatalogEntries: number,
  ) {
    this.identity = new FileIdentity(location);
    this.statements = prepareStatements(db);
    this.rows = new RowWriter(this.statements);
    this.catalogCache = keepCatalogEntries > 0 ? new TokenCache(keepCatalogEntries) : undefined;
  }

  async getMeta(): Promise<IndexMeta> {
    return this.guard(() => {
      const meta = new Map((this.statements.meta.all() as Array<{ key: string; value: string }>).map((row) => [row.key, row.value]));
      return {
        schemaVersion: Number(meta.get('schema_version')),
        embedderId: meta.get('embedder') ?? 'none',
        dimensions: Number(meta.get('dimensions') ?? 0),
        createdAt: Number(meta.get('created_at') ?? 0),
        createdBy: meta.get('created_by') ?? 'unknown',
      };
    }, true);
  }

  async setEmbedder(embedderId: string, dimensions: number): Promise<void> {
    this.guard(() =>
      this.db
        .transaction(() => {
          this.statements.setMeta.run('embedder', embedderId);
          this.statements.setMeta.run('dimensions', String(dimensions));
        })
        .immediate(),
    );
  }

  async listOutline(): Promise<Array<{ path: string; symbols: Array<{ name: string; line: number }> }>> {
    return this.guard(() => groupOutline(this.statements.outline.all() as Array<[string, number, string]>));
  }

  async countCatalog(pathPrefix = ''): Promise<number> {
    return this.guard(() => this.statements.countUnder.get(pathPrefix, `${pathPrefix}\u{10ffff}`) as number);
  }

  async listCatalog(options: { pathPrefix?: string } = {}): Promise<CatalogEntry[]> {
    return this.guard(() => {
      const rows = options.pathPrefix ? (this.statements.catalogUnder.all(options.pathPrefix, `${options.pathPrefix}\u{10ffff}`) as CatalogRow[]) : (this.statements.catalogAll.all() as CatalogRow[]);
      return rows.map(toCatalogEntry);
    });
  }

  async getCatalogEntries(paths: string[]): Promise<Map<string, CatalogEntry>> {
    if (paths.length === 0) return new Map();
    return this.guard(() => {
      const cache = this.catalogCache;
      const read = (wanted: string[]) => (this.statements.catalogMany.all(JSON.stringify(wanted)) as CatalogRow[]).map(toCatalogEntry);
      if (!cache) return new Map(read(paths).map((entry) => [entry.path, entry]));
      const { found, missing } = cache.lookup(paths, `${this.version()}:${this.touches}`);
      if (missing.length === 0) return found;
      for (const entry of read(missing)) {
        const frozen = Object.freeze(entry);
        cache.set(entry.path, frozen);
        found.set(entry.path, frozen);
      }
      for (const path of missing) if (!found.has(path)) cache.set(path, null);
      return found;
    }, true);
  }

  async getCatalogEntry(path: string): Promise<CatalogEntry | undefined> {
    return this.guard(() => {
      const row = this.statements.catalogOne.get(path) as CatalogRow | undefined;
      return row ? toCatalogEntry(row) : undefined;
    });
  }

  async writeFile(write: FileWrite): Promise<void> {
    await this.writeFiles([write]);
  }

  async writeFiles(writes: FileWrite[]): Promise<void> {
    if (writes.length === 0) return;
    this.guard(() => this.db.transaction(() => writes.forEach((write) => this.rows.writeFile(write))).immediate());
    this.writes++;
  }

  async deleteFiles(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    this.guard(() =>
      this.db
        .transaction(() => {
          for (const path of paths) {
            this.rows.removeChunksOfPath(path);
            this.statements.deleteFile.run(path);
          }
        })
        .immediate(),
    );
    this.writes++;
  }

  async bulkWrites(active: boolean): Promise<void> {
    // Counted: two runs sharing this connection (a documents run beside a folder run) end bulk mode once both have.
    const before = this.bulkRuns;
    this.bulkRuns = Math.max(0, before + (active ? 1 : -1));
    if ((before === 0) === (this.bulkRuns === 0)) return;
    this.guard(() => (active ? startBulk(this.db, this.statements.countChunks.get() as number) : endBulk(this.db)));
  }

  async touchFile(path: string, size: number, mtimeMs: number): Promise<void> {
    this.guard(() => this.statements.touchFile.run(size, mtimeMs, Date.now(), path));
    this.touches++;
  }

  async deleteFile(path: string): Promise<void> {
    await this.deleteFiles([path]);
  }

  async getCachedVectors(embedderId: string, contentHashes: string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    if (contentHashes.length === 0) return found;
    this.guard(() => {
      const rows = this.statements.cachedVectors.all(embedderId, JSON.stringify(contentHashes)) as Array<{ content_hash: string; vector: Buffer }>;
      for (const row of rows) found.set(row.content_hash, decodeVector(row.vector));
    });
    return found;
  }

  async putCachedVectors(embedderId: string, vectors: Map<string, Float32Array>): Promise<void> {
    const now = Date.now();
    this.guard(() =>
      this.db
        .transaction(() => {
          for (const [hash, vector] of vectors) this.statements.insertVector.run(embedderId, hash, encodeVector(vector), now);
        })
        .immediate(),
    );
  }

  async languages(): Promise<Map<string, number>> {
    return this.guard(() => sqliteLanguages(this.db));
  }

  /** The cold path: one streaming pass over the stored vectors (warm engines keep them in memory). */
  async searchVectors(query: VectorQuery): Promise<ScoredRow[]> {
    return this.guard(() => scanVectors(this.statements, query), true);
  }

  async getChunks(rowIds: number[]): Promise<ChunkRecord[]> {
    if (rowIds.length === 0) return [];
    const rows = this.guard(() => this.statements.chunksByIds.all(JSON.stringify(rowIds)) as ChunkTuple[], true);
    return recordsInOrder(rowIds, rows.map(tupleToChunkRecord));
  }

  async listChunks(paths: string[]): Promise<ChunkRecord[]> {
    if (paths.length === 0) return [];
    const rows = this.guard(() => this.statements.chunksOfPaths.all(JSON.stringify(paths)) as ChunkRow[]);
    return rows.map(toChunkRecord);
  }

  async setFileEmbedder(paths: string[], embedderId: string): Promise<void> {
    if (paths.length === 0) return;
    this.guard(() =>
      this.db
        .transaction(() => {
          for (const path of paths) this.statements.setFileEmbedder.run(embedderId, path);
        })
        .immediate(),
    );
    this.writes++;
  }

  async findMentions(query: MentionQuery): Promise<ScoredRow[]> {
    return this.guard(() => findMentionsSql(this.db, query), true);
  }

  async changeToken(): Promise<string> {
    return this.guard(() => this.version(), true);
  }

  /** Moves with every commit, this connection's (writes) or another's (SQLite's data_version). */
  private version(): string {
    return `${this.statements.dataVersion.get() as number}:${this.writes}`;
  }

  async scanIndexRows(options: ScanOptions): Promise<IndexRow[]> {
    return this.guard(() => {
      // Rows as arrays (id, path, language, terms, vector): no object per row from SQLite.
      const raw = this.statements.scanRows.all(options.embedderId ?? '', options.afterRowId ?? 0, options.limit ?? -1) as Array<[number, string, string, Buffer, Buffer | null, string | null]>;
      return raw.map(([rowId, path, language, data, vector, contentHash]) => {
        const indexRow: IndexRow = { rowId, path, language, terms: decodeTerms(data) };
        if (vector) indexRow.vector = decodeVector(vector);
        else if (contentHash) indexRow.contentHash = contentHash;
        return indexRow;
      });
    });
  }

  async countChunks(): Promise<number> {
    return this.guard(() => this.statements.countChunks.get() as number);
  }

  async chunkDeletions(): Promise<number | undefined> {
    return this.guard(() => {
      const value = Number(this.statements.chunkDeletions.get());
      return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
    });
  }

  deletedRowIds(after: number, upTo: number): Promise<Int32Array | undefined> {
    return deletionSpan(after, upTo, () => this.guard(() => this.statements.tombstones.all(after, upTo) as number[]));
  }

  async liveRowIds(): Promise<Int32Array> {
    return this.guard(() => Int32Array.from(this.statements.liveRowIds.all() as number[]));
  }

  async readLexicon(afterId: number): Promise<Array<[number, string]>> {
    return this.guard(() => this.statements.lexiconAfter.all(afterId) as Array<[number, string]>);
  }

  async readLexiconSorted(): Promise<{ bytes: Uint8Array; offsets: Uint32Array; ids: Uint32Array }> {
    return this.guard(() => packedTerms(this.statements.lexiconCount.get() as number, this.statements.lexiconByTerm.iterate() as IterableIterator<[number, string]>));
  }

  async readState(key: string): Promise<string | undefined> {
    return this.guard(() => this.statements.getMeta.get(`state:${key}`) as string | undefined);
  }

  async writeState(key: string, value: string): Promise<void> {
    this.guard(() => this.statements.setMeta.run(`state:${key}`, value));
  }

  async updateState(key: string, update: (current: string | undefined) => string | undefined): Promise<string | undefined> {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const current = this.statements.getMeta.get(`state:${key}`) as string | undefined;
          const next = update(current);
          if (next === undefined) return current;
          this.statements.setMeta.run(`state:${key}`, next);
          return next;
        })
        .immediate(),
    );
  }

  async listState(): Promise<Array<[string, string]>> {
    return this.guard(() =>
      (this.statements.meta.all() as Array<{ key: string; value: string }>)
        .filter((row) => row.key.startsWith('state:'))
        .map((row): [string, string] => [row.key.slice('state:'.length), row.value])
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    );
  }

  async countRows(): Promise<{ files: number; chunks: number }> {
    return this.guard(() => ({ files: this.statements.countFiles.get() as number, chunks: this.statements.countChunks.get() as number }));
  }

  async counts(): Promise<StoreCounts> {
    return this.guard(() => {
      const count = (sql: string, ...params: unknown[]) =>
        Number(
          this.db
            .prepare(sql)
            .pluck()
            .get(...params) ?? 0,
        );
      const meta = new Map((this.statements.meta.all() as Array<{ key: string; value: string }>).map((row) => [row.key, row.value]));
      const embedder = meta.get('embedder') ?? 'none';
      let bytesOnDisk = 0;
      for (const suffix of ['', '-wal']) {
        try {
          bytesOnDisk += statSync(this.location + suffix).size;
        } catch {
          // the WAL file may not exist between checkpoints
        }
      }
      return {
        files: this.statements.countFiles.get() as number,
        chunks: this.statements.countChunks.get() as number,
        vectors: count('SELECT count(*) FROM chunks c JOIN embeddings e ON e.embedder = ? AND e.content_hash = c.content_hash', embedder),
        cachedEmbeddings: count('SELECT count(*) FROM embeddings'),
        bytesOnDisk,
      };
    });
  }

  async collectGarbage(options: { keepUnreferenced: number; compact?: boolean; truncateLog?: boolean }): Promise<{ removedVectors: number; keptUnreferenced: number }> {
    const result = this.guard(() =>
      this.db
        .transaction(() => {
          const embedder = (this.statements.getMeta.get('embedder') as string | undefined) ?? 'none';
          ensureContentIndex(this.db); // a bulk run's, dropped (bulk-mode.ts)
          const removedVectors = this.statements.deleteUnreferenced.run(embedder, Math.max(0, options.keepUnreferenced)).changes;
          if (removedVectors > 0) this.writes++;
          return { removedVectors, keptUnreferenced: this.statements.countUnreferenced.get(embedder) as number };
        })
        .immediate(),
    );
    if (options.compact) this.guard(() => this.db.exec('VACUUM'));
    // What was freed (and, compacting, the whole rewritten file) sits in the write-ahead log until
    // a checkpoint: moved into the database and the log emptied, so the space is really given
    // back and a size measured now is the store's. Readers still holding old pages leave it be.
    if (options.truncateLog) this.guard(() => this.db.pragma('wal_checkpoint(TRUNCATE)'));
    return result;
  }

  async quickCheck(): Promise<void> {
    this.guard(() => assertQuickCheck(this.db, this.location));
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    try {
      this.db.pragma('optimize');
    } catch {
      // optimize is advisory; a read-only or busy database may refuse it
    }
    this.db.close();
  }

  /** `reading`: a read on a search's path, which shares the file check of calls just before it (file-identity.ts). */
  private guard<T>(action: () => T, reading = false): T {
    // A Memory or a search kept past its engine's close() gets a typed error, not "The database connection is not open".
    if (!this.db.open) throw new LociError('ENGINE_CLOSED', 'This store was closed with its engine; a closed store answers nothing.');
    this.identity.check(this.location, reading);
    try {
      return action();
    } catch (error) {
      // A rolled-back write may have cached term ids that were never committed.
      this.rows.forgetTermIds();
      throw wrapSqliteError(error, this.location);
    }
  }
}
