import { z } from 'zod';
import { callback, checkTypes, finite } from '../errors/check-types.js';
import type { IndexSummary } from '../indexing/events.js';
import { watchFolder } from '../sources/watch-folder.js';

export interface WatchOptions {
  /** Quiet time before a batch of saves is indexed (default 50 ms). */
  debounceMs?: number;
  onEvent?: (event: WatchEvent) => void;
}

export type WatchEvent =
  | { type: 'watch-ready'; summary: IndexSummary }
  | { type: 'watch-indexed'; paths: string[]; summary: IndexSummary; milliseconds: number }
  | { type: 'watch-error'; error: Error };

export interface LociWatcher {
  close(): Promise<void>;
}

/**
 * Watches the root and re-indexes changed files as they are saved (debounced), after one
 * full run; an ignore-file change re-runs everything. Batches never overlap.
 */
/** What watching needs from an engine (a `Loci` is one). */
export interface WatchedEngine {
  readonly root: string;
  index(): Promise<IndexSummary>;
  indexPaths(paths: readonly string[]): Promise<IndexSummary>;
}

export const watchOptionTypes = z.looseObject({ debounceMs: finite.optional(), onEvent: callback.optional() });

export async function watchEngine(engine: WatchedEngine, storePaths: string[], watchOptions: WatchOptions): Promise<LociWatcher> {
  checkTypes(watchOptionTypes, watchOptions, 'watch options', '{ debounceMs: 200, onEvent: (event) => console.log(event.type) }');
  const emit = watchOptions.onEvent ?? (() => undefined);
  const watcher = watchFolder({
    root: engine.root,
    excludeAbsolutePaths: storePaths,
    ...(watchOptions.debounceMs !== undefined ? { debounceMs: watchOptions.debounceMs } : {}),
    onChanges: (paths, info) => {
      // One batch at a time, in order: a save during indexing waits for the next batch.
      queue = queue.then(async () => {
        const started = performance.now();
        try {
          const summary = info.rulesChanged ? await engine.index() : await engine.indexPaths(paths);
          emit({ type: 'watch-indexed', paths, summary, milliseconds: Math.round(performance.now() - started) });
        } catch (error) {
          emit({ type: 'watch-error', error: error as Error });
        }
      });
    },
    onError: (error) => emit({ type: 'watch-error', error }),
  });
  // The first full run goes first in the same queue, so batches never overlap it.
  const initial = watcher.ready.then(() => engine.index());
  let queue: Promise<void> = initial.then(
    () => undefined,
    () => undefined,
  );
  try {
    emit({ type: 'watch-ready', summary: await initial });
  } catch (error) {
    await watcher.close();
    throw error;
  }
  return {
    close: async () => {
      await watcher.close();
      await queue;
    },
  };
}
