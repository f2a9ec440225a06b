import { join } from 'node:path';
import type { LociConfig } from '../config/schema.js';
import { deferredModel } from '../embed/deferred-model.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import { isProviderFailure, LociError } from '../errors/index.js';
import type { SourceReader } from '../memory/knowledge-source.js';
import { Memory } from '../memory/memory.js';
import { ensureStoreInstance } from '../retrieve/warm/warm-segment.js';
import { MEMORY_DATABASE, openStore, segmentFile, vectorGraphFile, type StoreLocation } from '../store/location.js';
import type { Store } from '../store/spec.js';

export interface OpenEngineMemoryOptions {
  /** Opens the memory's own store (closed again when opening the memory fails). */
  openStore: () => Promise<Store>;
  /** Where the index lives (names the memory's vector graph file). */
  location: StoreLocation;
  config: LociConfig['memory'];
  inMemory: boolean;
  /** The embedder the user asked for; the recorded id lends its size (no probe). */
  resolveModel: (recordedEmbedderId: string) => Promise<EmbeddingModel | undefined>;
  /** Reads knowledge files named by HTTP or MCP callers, inside the root by its rules. */
  readSource?: SourceReader;
}

/** Memory beside the index, on its own store, with the embedder the user asked for. */
export async function openEngineMemory(options: OpenEngineMemoryOptions): Promise<{ memory: Memory; store: Store }> {
  const { location } = options;
  const store = await options.openStore();
  try {
    const meta = await store.getMeta();
    const { model, down } = await memoryModel(options, meta.embedderId);
    const embedderId = model ? embedderIdOf(model) : 'none';
    const memoryGraph = vectorGraphFile(location, embedderId, 'memory');
    const memorySegment = segmentFile(location, embedderId, 'memory');
    // The id a segment file is checked against; a store opened read-only simply keeps none.
    if (memorySegment) await ensureStoreInstance(store).catch(() => undefined);
    const memory = new Memory({
      store,
      model,
      config: options.config,
      inMemory: options.inMemory,
      ...(memoryGraph ? { graphFile: memoryGraph } : {}),
      ...(memorySegment ? { segmentFile: memorySegment } : {}),
      ...(down && !model ? { modelUnavailable: down } : {}),
      ...(options.readSource ? { readSource: options.readSource } : {}),
    });
    // An embedder that cannot be set up now leaves the store's recorded embedder as it is.
    if (meta.embedderId !== embedderId && down === undefined) {
      await store.setEmbedder(embedderId, model?.dimensions ?? 0);
      // Records embedded by another model are re-embedded, so recall never mixes vector spaces.
      if (embedderId !== 'none' && (await store.countCatalog()) > 0) await memory.records.write(await memory.records.list({ includeExpired: true }));
    }
    return { memory, store };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * The memory's embedder. Degrade, never lose: when it cannot be set up now (a key not
 * exported, a server down while its size must be asked), memory still opens, with the model
 * its store recorded standing in (set up on first use, tried again on later calls), or, for
 * a store that has none yet, without vectors until a later process embeds them all.
 */
async function memoryModel(options: OpenEngineMemoryOptions, recordedEmbedderId: string): Promise<{ model: EmbeddingModel | undefined; down?: LociError }> {
  try {
    return { model: await options.resolveModel(recordedEmbedderId) };
  } catch (error) {
    if (!isProviderFailure(error)) throw error;
    return { model: deferredModel(recordedEmbedderId, () => options.resolveModel(recordedEmbedderId)), down: error };
  }
}

/** The memory's own store: `memory.db` beside a SQLite index, a suffixed namespace on Postgres, or the one the caller passed. */
export async function openMemoryStore(location: StoreLocation): Promise<Store> {
  if (location.kind === 'sqlite') return openStore({ kind: 'sqlite', folder: location.folder, file: join(location.folder, MEMORY_DATABASE) }, { create: true, keepCatalogEntries: 0 }); // RecordStore keeps parsed records
  if (location.kind === 'postgres') return openStore(location, { create: true, namespaceSuffix: '_memory' });
  if (location.memory) return location.memory;
  throw new LociError('NOT_SUPPORTED', 'This engine was given a Store object for its index but none for memory.', {
    hint: 'Pass createLoci({ store: { index, memory } }) with a second store for memory (it must not be the index store).',
  });
}
