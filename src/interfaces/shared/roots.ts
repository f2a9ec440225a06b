import { statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { LociConfig } from '../../config/schema.js';
import { createLoci, type Loci } from '../../engine/create-loci.js';
import { LociError } from '../../errors/index.js';
import type { IndexSummary } from '../../indexing/events.js';
import { MEMORY_DATABASE } from '../../store/file-names.js';

/** What watchers of a root's indexing hear: progress while it runs, then its end. */
export type IndexingListener = (state: RootState['indexing']) => void;

export interface RootState {
  name: string;
  path: string;
  loci: Loci;
  indexing: { running: boolean; startedAt?: number; finishedAt?: number; done?: number; total?: number; summary?: IndexSummary; error?: { code: string; message: string } };
}

/**
 * The indexed roots one server process serves, each with its own engine (index and
 * memory). Indexing runs in the background; searches keep answering from what is committed.
 */
export class Roots {
  private readonly byName = new Map<string, RootState>();
  private readonly controllers = new Set<AbortController>();
  private readonly listeners = new Map<string, Set<IndexingListener>>();
  /** Each root's engine maker and the store files it opened (reopenIfReplaced). */
  private readonly engines = new Map<RootState, { open: () => Loci; files: StoreFiles }>();
  /** Engines replaced while requests may still use them: closed with the rest. */
  private readonly retired = new Set<Promise<void>>();
  /** Roots to open again at their next request: a call or run met STORE_GONE for their store (noteError). */
  private readonly suspect = new Set<RootState>();

  constructor(paths: readonly string[], config: (root: string) => LociConfig, env: Record<string, string | undefined>) {
    for (const path of paths) {
      const absolute = resolve(path);
      // A folder named twice is served once (two engines on one store would race each other's writes).
      if ([...this.byName.values()].some((root) => root.path === absolute)) continue;
      let name = basename(absolute) || 'root';
      for (let suffix = 2; this.byName.has(name); suffix++) name = `${basename(absolute)}-${suffix}`;
      const open = () => createLoci({ root: absolute, config: config(absolute), env });
      const loci = open();
      const root: RootState = { name, path: absolute, loci, indexing: { running: false } };
      this.byName.set(name, root);
      this.engines.set(root, { open, files: new StoreFiles(loci.storeLocation) });
    }
  }

  list(): RootState[] {
    return [...this.byName.values()];
  }

  /** A root by name or path; the first one when none is named. */
  get(name?: string): RootState {
    const found = name === undefined || name === '' ? this.list()[0] : (this.byName.get(name) ?? this.list().find((root) => root.path === resolve(name)));
    if (!found) {
      throw new LociError('INDEX_NOT_FOUND', `No served root named "${name}".`, {
        hint: `Served roots: ${this.list()
          .map((root) => root.name)
          .join(', ')}.`,
      });
    }
    this.reopenIfReplaced(found);
    return found;
  }

  /**
   * A root whose store files were deleted or replaced since its engine opened them (`rm -rf .loci`
   * then `loci index` while the server runs) gets a new engine on the files there now, as a
   * restart would: before, every request answered STORE_GONE until the server was restarted (an
   * editor's MCP server too). The old engine finishes what it was answering, then closes. Not
   * while this server indexes the root: that run ends first (it meets STORE_GONE itself).
   */
  private reopenIfReplaced(root: RootState): void {
    const engine = this.engines.get(root);
    if (!engine || root.indexing.running || !(engine.files.replaced() || this.suspect.has(root))) return;
    const old = root.loci;
    root.loci = engine.open(); // a config that no longer loads throws here: that request says why, and the next one tries again
    this.suspect.delete(root);
    engine.files = new StoreFiles(root.loci.storeLocation);
    const closing = old.close().catch(() => undefined);
    this.retired.add(closing);
    void closing.finally(() => this.retired.delete(closing));
  }

  /**
   * Called with every error a request or run answers: after STORE_GONE the root whose store file
   * it names is opened again at its next request. The file check in get() misses a store this
   * server's engine created itself and that was replaced before that check first saw it.
   */
  noteError(error: unknown): void {
    if (!(error instanceof LociError && error.code === 'STORE_GONE')) return;
    const file = typeof error.details.file === 'string' ? resolve(error.details.file) : undefined;
    for (const root of this.list()) if (file === undefined || this.engines.get(root)?.files.has(file)) this.suspect.add(root);
  }

  /** Calls `listener` on each progress step and at the end of a root's indexing; returns the unsubscribe. */
  watchIndexing(root: RootState, listener: IndexingListener): () => void {
    const set = this.listeners.get(root.name) ?? new Set<IndexingListener>();
    set.add(listener);
    this.listeners.set(root.name, set);
    return () => set.delete(listener);
  }

  private emit(root: RootState): void {
    for (const listener of this.listeners.get(root.name) ?? []) {
      try {
        listener(root.indexing);
      } catch {
        // A listener that fails (a closed stream) never stops the indexing.
      }
    }
  }

  /** Starts indexing a root in the background (a no-op while a run is going). */
  startIndexing(root: RootState): RootState['indexing'] {
    if (root.indexing.running) return root.indexing;
    const controller = new AbortController();
    this.controllers.add(controller);
    root.indexing = { running: true, startedAt: Date.now() };
    this.emit(root);
    void root.loci
      .index({
        signal: controller.signal,
        onProgress: (event) => {
          if (event.type === 'file-indexed' || event.type === 'file-unchanged' || event.type === 'file-skipped') {
            root.indexing.done = event.done;
            root.indexing.total = event.total;
            this.emit(root);
          }
        },
      })
      .then((summary) => {
        root.indexing = { running: false, startedAt: root.indexing.startedAt as number, finishedAt: Date.now(), summary };
        this.emit(root);
      })
      .catch((error: unknown) => {
        this.noteError(error);
        const code = error instanceof LociError ? error.code : 'INTERNAL';
        root.indexing = { running: false, startedAt: root.indexing.startedAt as number, finishedAt: Date.now(), error: { code, message: (error as Error).message } };
        this.emit(root);
      })
      .finally(() => this.controllers.delete(controller));
    return root.indexing;
  }

  async close(): Promise<void> {
    for (const controller of this.controllers) controller.abort();
    for (const root of this.list()) await root.loci.close().catch(() => undefined);
    await Promise.all(this.retired);
  }
}

/**
 * A SQLite store's database files (index and memory) by device and inode, as first seen: one
 * seen that is now gone or another file has been replaced. A file that appears later (the
 * first `loci index`, or the engine creating it) is taken as it is. Other stores have none.
 */
class StoreFiles {
  private readonly seen = new Map<string, string | undefined>();

  constructor(location: string) {
    if (/^postgres(ql)?:\/\//i.test(location) || !/\.(db|sqlite3?)$/i.test(location)) return;
    for (const file of [resolve(location), join(dirname(resolve(location)), MEMORY_DATABASE)]) this.seen.set(file, identity(file));
  }

  has(file: string): boolean {
    return this.seen.has(file);
  }

  replaced(): boolean {
    for (const [file, was] of this.seen) {
      const now = identity(file);
      if (was === undefined) this.seen.set(file, now);
      else if (now !== was) return true;
    }
    return false;
  }
}

function identity(file: string): string | undefined {
  try {
    const stats = statSync(file, { throwIfNoEntry: false });
    return stats ? `${stats.dev}:${stats.ino}` : undefined;
  } catch {
    return undefined; // unreadable (EACCES, ENOTDIR): as gone; the engine's own calls say why
  }
}
