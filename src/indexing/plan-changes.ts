import type { CatalogEntry } from '../store/spec.js';

export interface PlannedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface ChangePlan<T extends PlannedFile> {
  /** Not in the catalog. */
  add: T[];
  /** Metadata, chunker or embedder changed: read, hash, and rewrite if needed. */
  check: Array<{ file: T; previous: CatalogEntry }>;
  unchanged: T[];
  /** In the catalog but gone from the source. */
  remove: CatalogEntry[];
}

export interface PlanOptions {
  chunker: string;
  embedder: string;
}

/**
 * Continue's incremental model: size+mtime is the fast path, the content hash decides.
 * A file whose mtime is within 2 s of when it was indexed is re-hashed anyway ("racy
 * clean" in git's terms): it may have changed again within the clock's resolution.
 */
export function planChanges<T extends PlannedFile>(files: readonly T[], catalog: readonly CatalogEntry[], options: PlanOptions): ChangePlan<T> {
  const previousByPath = new Map(catalog.map((entry) => [entry.path, entry]));
  const plan: ChangePlan<T> = { add: [], check: [], unchanged: [], remove: [] };
  const seen = new Set<string>();
  for (const file of files) {
    seen.add(file.path);
    const previous = previousByPath.get(file.path);
    if (!previous) {
      plan.add.push(file);
      continue;
    }
    const sameMetadata = previous.size === file.size && previous.mtimeMs === file.mtimeMs && file.mtimeMs < previous.indexedAt - 2000;
    const sameArtifacts = previous.chunker === options.chunker && previous.embedder === options.embedder;
    if (sameMetadata && sameArtifacts) plan.unchanged.push(file);
    else plan.check.push({ file, previous });
  }
  for (const entry of catalog) if (!seen.has(entry.path)) plan.remove.push(entry);
  return plan;
}
