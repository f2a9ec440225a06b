import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SearchResult } from '../retrieve/search-types.js';
import type { Store } from '../store/spec.js';

/**
 * Flags results whose file changed (size or mtime) or vanished (also `deleted`) since it was indexed: one
 * stat per distinct file in the results. Documents indexed from memory (mtime 0) are skipped.
 */
export async function markStale(root: string, store: Store, results: SearchResult[]): Promise<void> {
  if (results.length === 0) return;
  const entries = await store.getCatalogEntries([...new Set(results.map((result) => result.path))]);
  const staleness = new Map<string, 'changed' | 'deleted'>();
  await Promise.all(
    [...entries.values()].map(async (entry) => {
      if (entry.mtimeMs === 0) return;
      const info = await stat(join(root, entry.path)).catch(() => undefined);
      if (!info || !info.isFile()) staleness.set(entry.path, 'deleted');
      else if (info.size !== entry.size || info.mtimeMs !== entry.mtimeMs) staleness.set(entry.path, 'changed');
    }),
  );
  for (const result of results) {
    const state = staleness.get(result.path);
    if (state) result.stale = true;
    if (state === 'deleted') result.deleted = true;
  }
}
