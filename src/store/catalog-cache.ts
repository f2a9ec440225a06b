import type { CatalogEntry } from './spec.js';

/**
 * Catalog entries by path, kept until the store's change token moves. Searches ask for the
 * same files again and again (the ranker's window, staleness checks); entries are frozen
 * because callers share them.
 */
export class CatalogCache {
  /** null: known absent. */
  private readonly entries = new Map<string, Readonly<CatalogEntry> | null>();
  private token = '';

  constructor(private readonly limit = 50_000) {}

  /** The entries of `paths` as of `token`, reading only the ones not kept (`read` returns those that exist). */
  get(paths: readonly string[], token: string, read: (missing: string[]) => CatalogEntry[]): Map<string, CatalogEntry> {
    if (token !== this.token || this.entries.size > this.limit) {
      this.entries.clear();
      this.token = token;
    }
    const found = new Map<string, CatalogEntry>();
    const missing: string[] = [];
    for (const path of paths) {
      const kept = this.entries.get(path);
      if (kept === undefined) missing.push(path);
      else if (kept !== null) found.set(path, kept);
    }
    if (missing.length === 0) return found;
    for (const entry of read(missing)) {
      const frozen = Object.freeze(entry);
      this.entries.set(entry.path, frozen);
      found.set(entry.path, frozen);
    }
    for (const path of missing) if (!this.entries.has(path)) this.entries.set(path, null);
    return found;
  }
}
