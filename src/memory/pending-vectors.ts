import type { LociError } from '../errors/index.js';
import type { Store } from '../store/spec.js';

/** Where the memory store lists records written without vectors (JSON array of record paths). */
const PENDING_STATE = 'memory-pending-vectors';

/**
 * The records written while the embedder was down: stored with their text (found by
 * lexical recall at once) and listed here until a later write, recall or `loci gc`
 * embeds them. The list is a fast path; gc also finds any it missed by scanning the catalog.
 */
export class PendingVectors {
  constructor(private readonly store: Store) {}

  async list(): Promise<string[]> {
    const text = await this.store.readState(PENDING_STATE);
    if (!text) return [];
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
    } catch {
      return []; // a damaged list is rebuilt by the catalog scan in gc
    }
  }

  async add(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    const current = await this.list();
    const next = [...new Set([...current, ...paths])];
    if (next.length !== current.length) await this.store.writeState(PENDING_STATE, JSON.stringify(next));
  }

  async remove(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    const current = await this.list();
    if (current.length === 0) return;
    const done = new Set(paths);
    const next = current.filter((path) => !done.has(path));
    if (next.length !== current.length) await this.store.writeState(PENDING_STATE, JSON.stringify(next));
  }
}

/** The warning on a record just written without a vector. */
export function storedWithoutVector(failure: LociError | undefined): string {
  return `Stored without a vector: the embedder failed (${failure?.message ?? 'unknown error'}). Lexical recall finds it now; it is embedded on a later write, recall or \`loci gc\`.`;
}
