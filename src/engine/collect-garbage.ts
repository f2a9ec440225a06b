import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isLociError } from '../errors/index.js';
import type { Memory } from '../memory/memory.js';
import { MEMORY_DATABASE, type StoreLocation } from '../store/location.js';
import type { Store } from '../store/spec.js';
import type { GcSummary } from './engine-types.js';
import { indexFileBytes, removeStaleIndexFiles } from './index-files.js';

export interface GarbageSources {
  location: StoreLocation;
  maxUnreferencedVectors: number;
  /** The store opened to read (INDEX_NOT_FOUND when there is none), then to write. */
  openStore: (create: boolean) => Promise<Store>;
  memory: () => Promise<Memory>;
}

/**
 * `loci gc`: drops cached vectors beyond the bound, stale graph and segment files, expired
 * memories, and embeds memories stored while the embedder was down. Never creates an index:
 * a folder never indexed is INDEX_NOT_FOUND, unless it keeps memory alone.
 */
export async function collectGarbage(sources: GarbageSources, options: { compact?: boolean } = {}): Promise<GcSummary> {
  const { location } = sources;
  const memoryKept = location.kind === 'postgres' || (location.kind === 'instance' ? location.memory !== undefined : existsSync(join(location.folder, MEMORY_DATABASE)));
  let store: Store | undefined;
  try {
    await sources.openStore(false);
    // Then opened to write, which checks the store first.
    store = await sources.openStore(true);
  } catch (error) {
    if (!(isLociError(error) && error.code === 'INDEX_NOT_FOUND' && memoryKept)) throw error;
  }
  // The database and the index's segment and graph files (what `status` reports).
  const bytesOnDisk = async (open: Store) => (await open.counts()).bytesOnDisk + (await indexFileBytes(location));
  const bytesBefore = store ? await bytesOnDisk(store) : 0;
  const { removedVectors, keptUnreferenced } = store
    ? await store.collectGarbage({ keepUnreferenced: sources.maxUnreferencedVectors, truncateLog: true, ...(options.compact ? { compact: true } : {}) })
    : { removedVectors: 0, keptUnreferenced: 0 };
  const removedGraphFiles = store && location.kind === 'sqlite' ? await removeStaleIndexFiles(location.folder, (await store.getMeta()).embedderId) : [];
  const memory = memoryKept ? await sources.memory() : undefined;
  const expiredMemories = memory ? await memory.gc() : 0;
  // Records stored while the embedder was down (listed or not) get their vectors now.
  const pending = memory ? await memory.records.embedPending({ scan: true }) : { embedded: 0, pending: 0 };
  const bytesAfter = store ? await bytesOnDisk(store) : 0;
  return {
    removedVectors,
    keptUnreferenced,
    removedGraphFiles,
    expiredMemories,
    embeddedMemories: pending.embedded,
    bytesBefore,
    bytesAfter,
    warnings: pending.failure ? [`${pending.pending} memory record(s) stored without vectors could not be embedded: ${pending.failure.message}`] : [],
  };
}
