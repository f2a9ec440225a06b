import { basename, resolve } from 'node:path';
import type { LociConfig } from '../../config/schema.js';
import { createLoci, type Loci } from '../../engine/create-loci.js';
import { LociError } from '../../errors/index.js';
import type { IndexSummary } from '../../indexing/events.js';

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

  constructor(paths: readonly string[], config: (root: string) => LociConfig, env: Record<string, string | undefined>) {
    for (const path of paths) {
      const absolute = resolve(path);
      // A folder named twice is served once (two engines on one store would race each other's writes).
      if ([...this.byName.values()].some((root) => root.path === absolute)) continue;
      let name = basename(absolute) || 'root';
      for (let suffix = 2; this.byName.has(name); suffix++) name = `${basename(absolute)}-${suffix}`;
      this.byName.set(name, { name, path: absolute, loci: createLoci({ root: absolute, config: config(absolute), env }), indexing: { running: false } });
    }
  }

  list(): RootState[] {
    return [...this.byName.values()];
  }

  /** A root by name or path; the first one when none is named. */
  get(name?: string): RootState {
    if (name === undefined || name === '') return this.list()[0] as RootState;
    const found = this.byName.get(name) ?? this.list().find((root) => root.path === resolve(name));
    if (!found) {
      throw new LociError('INDEX_NOT_FOUND', `No served root named "${name}".`, {
        hint: `Served roots: ${this.list()
          .map((root) => root.name)
          .join(', ')}.`,
      });
    }
    return found;
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
  }
}
