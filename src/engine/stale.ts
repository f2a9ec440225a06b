import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SearchResult } from '../retrieve/search-types.js';
import type { Store } from '../store/spec.js';

/**
 * Flags results whose file changed (size or mtime) or vanished since it was indexed: one
 * stat per distinct file in the results. Documents indexed from memory (mtime 0) are skipped.
 */
export async function markStale(root: string, store: Store, results: SearchResult[]): Promise<void> {
  if (results.length === 0) return;
  const entries = await store.getCatalogEntries([...new Set(results.map((result) => result.path))]);
  const staleness = new Map<string, boolean>();
  await Promise.all(
    [...entries.values()].map(async (entry) => {
      if (entry.mtimeMs === 0) return;
      const info = await stat(join(root, entry.path)).catch(() => undefined);
      staleness.set(entry.path, !info || info.size !== entry.size || info.mtimeMs !== entry.mtimeMs);
    }),
  );
  for (const result of results) if (staleness.get(result.path)) result.stale = true;
}
