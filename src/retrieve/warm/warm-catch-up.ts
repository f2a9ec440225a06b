import type { Store } from '../../store/spec.js';
import type { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';

/** What a catch-up knows of the rows it holds. */
export interface HeldRows {
  has(rowId: number): boolean;
  rowIds(): Iterable<number>;
  readonly size: number;
}

/**
 * The held rows the store deleted since the deletion count `seen`, and the count they reflect
 * (unchanged when it cannot tell yet). Rows are never updated in place, only deleted and
 * re-inserted with new ids. A store that logs its deletions names the rows deleted since;
 * one that only counts them says whether any happened; otherwise (or when the log does not
 * reach back) a row count unequal to ours means some held rows are gone, found by comparing
 * every live row id.
 */
export async function deletedSince(store: Store, held: HeldRows, seen: number | undefined, watermark: number): Promise<{ gone: number[]; seen: number | undefined }> {
  const deletions = await store.chunkDeletions?.();
  if (deletions !== undefined && deletions === seen) return { gone: [], seen };
  const logged = deletions !== undefined && seen !== undefined && deletions > seen ? await store.deletedRowIds?.(seen, deletions) : undefined;
  if (logged) return { gone: Array.from(logged).filter((rowId) => held.has(rowId)), seen: deletions };
  if ((await store.countChunks()) !== held.size) {
    const alive = new Set(await store.liveRowIds());
    return { gone: [...held.rowIds()].filter((rowId) => !alive.has(rowId)), seen: deletions };
  }
  // Equal counts prove the same rows only when no row came after the scan (new rows could
  // stand in for deleted ones); otherwise the next catch-up looks again.
  const later = await store.scanIndexRows({ afterRowId: watermark, limit: 1 });
  return { gone: [], seen: later.length === 0 ? deletions : seen };
}

/** Attaches the vectors the store now has (joined by content hash) to held rows that had none, a slice at a time. */
export async function attachCachedVectors(
  store: Store,
  embedderId: string,
  withoutVector: Map<number, { path: string; language: string; contentHash: string }>,
  vectors: ExactOrGraphVectorIndex,
  slice: number,
  current: () => boolean = () => true,
): Promise<number> {
  const entries = [...withoutVector];
  let attached = 0;
  for (let start = 0; start < entries.length; start += slice) {
    const part = entries.slice(start, start + slice);
    const found = await store.getCachedVectors(embedderId, [...new Set(part.map(([, entry]) => entry.contentHash))]);
    if (!current()) return attached; // the index was reset meanwhile: these rows are not its own any more
    for (const [rowId, { contentHash, ...meta }] of part) {
      const vector = found.get(contentHash);
      if (!vector || vector.length !== vectors.dimensions) continue;
      vectors.add(rowId, vector, meta);
      withoutVector.delete(rowId);
      attached++;
    }
    if (found.size > 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return attached;
}
