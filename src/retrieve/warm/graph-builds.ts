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
