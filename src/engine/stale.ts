import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SearchResponse, SearchResult } from '../retrieve/search-types.js';
import { LAST_RUN_STATE } from '../indexing/run-state.js';
import { currentRun } from './run-lease.js';
import type { Store, StoreUpgrade, StoreUpgradeListener } from '../store/spec.js';

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
      if (!info?.isFile()) staleness.set(entry.path, 'deleted');
      else if (info.size !== entry.size || info.mtimeMs !== entry.mtimeMs) staleness.set(entry.path, 'changed');
    }),
  );
  for (const result of results) {
    const state = staleness.get(result.path);
    if (state) result.stale = true;
    if (state === 'deleted') result.deleted = true;
  }
}

/**
 * What an engine adds to every response: stale and deleted files, a warning about its settings, and, until the first run
 * over the folder has finished, a warning that the results cover only the files indexed so
 * far (a search during a cold index answered from a part of it, with no word of it).
 */
export class ResultNotes {
  private firstRunDone = false;
  /** Said once, in the next response: the store's schema was upgraded at its open. */
  private upgraded: StoreUpgrade | undefined;

  constructor(
    private readonly root: string,
    /** A warning about the engine's own settings, for every response (engine-models.ts requestedNote). */
    private readonly settingsNote: () => string | undefined = () => undefined,
  ) {}

  /** A store open's upgrade listener: the next response says so; `forward` is told too (an index run's progress). */
  upgrades(forward?: StoreUpgradeListener): StoreUpgradeListener {
    return (upgrade) => {
      this.upgraded = upgrade;
      forward?.(upgrade);
    };
  }

  async apply(store: Store, response: SearchResponse): Promise<void> {
    await markStale(this.root, store, response.results);
    const note = this.settingsNote();
    if (note) response.warnings.push(note);
    if (this.upgraded) {
      const { from, to } = this.upgraded;
      this.upgraded = undefined;
      response.warnings.push(`This index was written by an older loci: it was upgraded from loci's schema version ${from} to ${to} as it opened (once).`);
    }
    if (this.firstRunDone) return;
    const run = await currentRun(store);
    // Nothing is being built now, or a run has finished: later searches need not look again
    // (a store of documents never records a folder run, and searched it two reads a time).
    if (!run || (await store.readState(LAST_RUN_STATE)) !== undefined) {
      this.firstRunDone = true;
      return;
    }
    response.warnings.push(`The first index of this folder is still being built (since ${new Date(run.since).toISOString()}): results come only from the files indexed so far.`);
  }
}
