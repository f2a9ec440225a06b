import type { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import { resolve } from 'node:path';

/**
 * Graph files a worker of this process is building now (an indexing run's background graph).
 * A warm index over the same store waits for that file, answering vector searches exactly,
 * instead of building the same graph on its own thread (a search during a 22k-chunk run held
 * the event loop 1.3 s doing so).
 */
const building = new Map<string, number>();

/** Marks `file` as being built until the returned release is called (once or more). */
export function graphBuildStarted(file: string): () => void {
  const key = resolve(file);
  building.set(key, (building.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (building.get(key) ?? 1) - 1;
    if (left > 0) building.set(key, left);
    else building.delete(key);
  };
}

/** Whether a worker of this process is building `file` now. */
export function graphBeingBuilt(file: string | undefined): boolean {
  return file !== undefined && building.has(resolve(file));
}

/** Time one step of a background drain runs before the event loop gets a turn: about the most a search waits for it. */
const DRAIN_STEP_MS = 2;
/** Vector indexes a drain is running for (one at a time each). */
const draining = new WeakSet<ExactOrGraphVectorIndex>();

/**
 * Puts the rows a catch-up added into the in-memory graph (ExactOrGraphVectorIndex.drain) a few
 * milliseconds at a time between other work, until none is left or `current()` fails (the index
 * was closed, reset or replaced, or its graph is left alone meanwhile). Searches score those rows
 * exactly until then. Before, each catch-up added them on the searching thread: `loci serve`
 * held searches 0.9–2.1 s at a time while another process re-indexed 600 files.
 */
export function drainInBackground(vectors: ExactOrGraphVectorIndex, current: () => boolean): void {
  if (draining.has(vectors) || vectors.undrained === 0) return;
  draining.add(vectors);
  const step = (): void => {
    let more = false;
    try {
      more = current() && vectors.drain(DRAIN_STEP_MS);
    } catch {
      // usearch refused a change: it stays pending (scored exactly, or skipped), and the next save tries it again
    }
    if (!more) return void draining.delete(vectors);
    // A timer, not an immediate: an idle server's event loop waits on its sockets and turns for unref'd immediates only when something else wakes it.
    setTimeout(step, 0).unref();
  };
  setTimeout(step, 0).unref();
}
