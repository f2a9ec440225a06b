import { setImmediate as nextTurn } from 'node:timers/promises';
import { CHUNKER_FINGERPRINT } from '../chunk/index.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import { isProviderFailure, throwIfAborted, type LociError } from '../errors/index.js';
import { embedChunks } from '../indexing/embed-chunks.js';
import type { PreparedChunk } from '../indexing/prepare-chunks.js';
import type { CatalogEntry, FileWrite, Store } from '../store/spec.js';
import { TokenCache } from '../store/token-cache.js';
import { namespacePrefix, parseRecordPath, recordPath } from './namespace.js';
import { PendingVectors } from './pending-vectors.js';
import { catalogEntryOf, prepareRecord, recordOf } from './records.js';
import type { MemoryFilter, MemoryRecord } from './spec.js';

/** Records per transaction: big enough to amortise the commit, small enough to stay responsive. */
const WRITE_BATCH = 256;
/** Parsed records kept for recall before the cache is dropped and refilled. */
const RECORD_CACHE_LIMIT = 200_000;

export interface WriteOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Throw the embedder's failure instead of writing without vectors. */
  requireVectors?: boolean;
}

export interface WriteOutcome {
  /** Records written without vectors because the embedder failed (they are embedded later). */
  withoutVectors: MemoryRecord[];
  /** The embedder's failure, when there was one. */
  failure?: LociError;
}

/**
 * Records on top of the store: each record is one catalog entry (its fields as JSON
 * attributes) plus its chunks, lexical rows and vectors, written atomically.
 */
export class RecordStore {
  private readonly cache = new TokenCache<MemoryRecord>(RECORD_CACHE_LIMIT);
  /** Namespaces of each id, as of a change token; rebuilt when another process writes. */
  private ids: { token: string; namespaces: Map<string, string[]> } | undefined;

  private readonly pending: PendingVectors;

  constructor(
    readonly store: Store,
    readonly model: EmbeddingModel | undefined,
    /** Why there is no model although one was asked for: records are written without vectors, and say so. */
    readonly modelUnavailable?: LociError,
  ) {
    this.pending = new PendingVectors(store);
  }

  get embedderId(): string {
    return this.model ? embedderIdOf(this.model) : 'none';
  }

  /**
   * Chunks, embeds (through the cache) and writes records; each batch is one transaction.
   * Degrade, never lose: when the embedder fails, records are written without vectors
   * (lexical recall finds them at once), listed as pending and embedded later
   * (embedPending); `withoutVectors` names them. `requireVectors` throws instead.
   */
  async write(records: readonly MemoryRecord[], options: WriteOptions = {}): Promise<WriteOutcome> {
    const outcome: WriteOutcome = { withoutVectors: [] };
    for (let start = 0; start < records.length; start += WRITE_BATCH) {
      // The store and the static model answer within microtasks: without a turn of the event
      // loop between batches, a 40k-section knowledge load held a server's every caller 7-16 s.
      if (start > 0) await nextTurn();
      throwIfAborted(options.signal);
      const batch = records.slice(start, start + WRITE_BATCH);
      const prepared: PreparedChunk[][] = [];
      for (const record of batch) prepared.push(await prepareRecord(record));
      let embedded = this.model !== undefined && outcome.failure === undefined;
      if (this.model && embedded) {
        try {
          await embedChunks(prepared.flat(), this.model, this.store, options.signal);
        } catch (error) {
          if (options.requireVectors || !isProviderFailure(error)) throw error;
          outcome.failure = error; // later batches of this call skip the embedder too
          embedded = false;
        }
      }
      const embedder = embedded || !this.model ? this.embedderId : 'pending'; // as progressive indexing marks files whose vectors are to come
      const writes: FileWrite[] = batch.map((record, index) => {
        const chunks = prepared[index] as PreparedChunk[];
        return { entry: catalogEntryOf(record, chunks.length, CHUNKER_FINGERPRINT, embedder), chunks: chunks.map((chunk) => chunk.write) };
      });
      await this.store.writeFiles(writes);
      const paths = batch.map((record) => recordPath(record.namespace, record.id));
      if (this.model && !embedded) {
        await this.pending.add(paths);
        outcome.withoutVectors.push(...batch);
      } else if (this.model) await this.pending.remove(paths);
      else if (this.modelUnavailable) {
        // Not listed: the first process that sets the embedder up re-embeds every record (a new embedder).
        outcome.withoutVectors.push(...batch);
        outcome.failure = this.modelUnavailable;
      }
      await this.noteIds(batch, 'add');
      options.onProgress?.(Math.min(start + WRITE_BATCH, records.length), records.length);
    }
    return outcome;
  }

  /**
   * Embeds records written without vectors: those listed as pending, or with `scan` every
   * record whose vectors are not the current embedder's (gc: finds any the list missed).
   * A provider failure leaves them pending and is returned, not thrown. Memory calls it
   * right after the embedder answered (a write or a recall), so a down embedder is not
   * asked once more for every call.
   */
  async embedPending(options: { signal?: AbortSignal; scan?: boolean } = {}): Promise<{ embedded: number; pending: number; failure?: LociError }> {
    if (!this.model) return { embedded: 0, pending: 0 };
    const paths = options.scan ? (await this.store.listCatalog()).filter((entry) => entry.embedder !== this.embedderId).map((entry) => entry.path) : await this.pending.list();
    if (paths.length === 0) return { embedded: 0, pending: 0 };
    const entries = await this.store.getCatalogEntries(paths);
    const records = [...entries.values()].map(recordOf).filter((record): record is MemoryRecord => record !== undefined);
    // Forgotten since: nothing to embed.
    await this.pending.remove(paths.filter((path) => !entries.has(path)));
    try {
      await this.write(records, { requireVectors: true, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      if (!isProviderFailure(error)) throw error;
      return { embedded: 0, pending: records.length, failure: error };
    }
    return { embedded: records.length, pending: 0 };
  }

  /**
   * Parsed records by path. Parsed records are cached until any process commits a write
   * (the store's change token moves), so repeated recalls skip the catalog round trip.
   */
  async byPaths(paths: string[]): Promise<Map<string, MemoryRecord>> {
    const { found, missing } = this.cache.lookup(paths, await this.store.changeToken());
    if (missing.length > 0) {
      for (const [path, entry] of await this.store.getCatalogEntries(missing)) {
        const record = recordOf(entry);
        if (!record) continue;
        found.set(path, record);
        this.cache.set(path, record);
      }
    }
    return found;
  }

  async get(namespace: string, id: string): Promise<MemoryRecord | undefined> {
    const entry = await this.store.getCatalogEntry(recordPath(namespace, id));
    return entry ? recordOf(entry) : undefined;
  }

  /** Finds a record by id alone (the first namespace that holds it; ids are unique per store since this check existed). */
  async find(id: string): Promise<MemoryRecord | undefined> {
    const [namespace] = await this.namespacesOf(id);
    return namespace === undefined ? undefined : this.get(namespace, id);
  }

  /**
   * The namespaces holding a record with this id: none or one, or several in stores
   * written before ids were checked. The first call lists the catalog; later ones reuse
   * it until another process writes (the change token moves).
   */
  async namespacesOf(id: string): Promise<string[]> {
    return (await this.idIndex()).get(id) ?? [];
  }

  /** namespacesOf for many ids at once (one change-token read). */
  async namespacesOfMany(ids: readonly string[]): Promise<Map<string, string[]>> {
    const index = await this.idIndex();
    return new Map(ids.map((id) => [id, index.get(id) ?? []]));
  }

  private async idIndex(): Promise<Map<string, string[]>> {
    const token = await this.store.changeToken();
    if (this.ids?.token !== token) {
      const namespaces = new Map<string, string[]>();
      for (const entry of await this.store.listCatalog()) {
        const path = parseRecordPath(entry.path);
        namespaces.set(path.id, [...(namespaces.get(path.id) ?? []), path.namespace]);
      }
      this.ids = { token, namespaces };
    }
    return this.ids.namespaces;
  }

  /**
   * Keeps the id index current after this process's own writes (cheaper than a relisting).
   * Best effort across processes: a write another process commits in between is seen once
   * the token moves again; the check is not a cross-process transaction.
   */
  private async noteIds(records: readonly MemoryRecord[], change: 'add' | 'delete'): Promise<void> {
    if (!this.ids) return;
    const { namespaces } = this.ids;
    for (const record of records) {
      const others = (namespaces.get(record.id) ?? []).filter((namespace) => namespace !== record.namespace);
      const next = change === 'add' ? [...others, record.namespace] : others;
      if (next.length > 0) namespaces.set(record.id, next);
      else namespaces.delete(record.id);
    }
    this.ids.token = await this.store.changeToken();
  }

  /** Records matching a filter, oldest first. */
  async list(filter: MemoryFilter = {}, now = Date.now()): Promise<MemoryRecord[]> {
    const entries: CatalogEntry[] = [];
    if (filter.namespaces && filter.namespaces.length > 0) {
      const seen = new Set<string>();
      for (const namespace of filter.namespaces) {
        for (const entry of await this.store.listCatalog({ pathPrefix: namespacePrefix(namespace) })) {
          if (!seen.has(entry.path)) entries.push(entry);
          seen.add(entry.path);
        }
      }
    } else {
      entries.push(...(await this.store.listCatalog()));
    }
    const ids = filter.ids ? new Set(filter.ids) : undefined;
    const kinds = filter.kinds ? new Set(filter.kinds) : undefined;
    const records: MemoryRecord[] = [];
    for (const entry of entries) {
      const record = recordOf(entry);
      if (!record) continue;
      if (ids && !ids.has(record.id)) continue;
      if (kinds && !kinds.has(record.kind)) continue;
      if (filter.before !== undefined && record.time >= filter.before) continue;
      if (filter.outcome && (record.kind !== 'interaction' || (record.fields as { outcome?: string } | undefined)?.outcome !== filter.outcome)) continue;
      if (!filter.includeExpired && record.expiresAt !== undefined && record.expiresAt <= now) continue;
      records.push(record);
    }
    return records.sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : 1));
  }

  async delete(records: readonly MemoryRecord[]): Promise<void> {
    const paths = records.map((record) => recordPath(record.namespace, record.id));
    for (let start = 0; start < paths.length; start += WRITE_BATCH) await this.store.deleteFiles(paths.slice(start, start + WRITE_BATCH));
    await this.noteIds(records, 'delete');
  }

  /** The vector of a record's first chunk, from the embedding cache (exports carry it). */
  async vectorOf(record: MemoryRecord): Promise<Float32Array | undefined> {
    if (!this.model) return undefined;
    const [first] = await prepareRecord(record);
    if (!first) return undefined;
    return (await this.store.getCachedVectors(this.embedderId, [first.write.contentHash])).get(first.write.contentHash);
  }

  /**
   * Seeds the embedding cache with vectors that came with an import, for single-chunk
   * records whose vectors are known to come from this embedder; writing then uses them.
   * Reports what it could not keep: vectors of another size (by size), longer records.
   */
  async seedVectors(pairs: ReadonlyArray<{ record: MemoryRecord; vector: Float32Array }>): Promise<{ kept: number; wrongSize: Map<number, number>; multiChunk: number }> {
    const wrongSize = new Map<number, number>();
    let multiChunk = 0;
    if (!this.model) return { kept: 0, wrongSize, multiChunk };
    const vectors = new Map<string, Float32Array>();
    for (const { record, vector } of pairs) {
      if (vector.length !== this.model.dimensions) {
        wrongSize.set(vector.length, (wrongSize.get(vector.length) ?? 0) + 1);
        continue;
      }
      const chunks = await prepareRecord(record);
      if (chunks.length !== 1) {
        multiChunk++;
        continue;
      }
      vectors.set((chunks[0] as PreparedChunk).write.contentHash, vector);
    }
    if (vectors.size > 0) await this.store.putCachedVectors(this.embedderId, vectors);
    return { kept: vectors.size, wrongSize, multiChunk };
  }
}
