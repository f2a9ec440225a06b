import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { WarmIndexOptions } from '../retrieve/warm/warm-index.js';
import { temporaryFileAbandoned, temporaryFilePid } from '../store/segment-writer.js';
import { SEGMENT_FILE, segmentFile, segmentName, VECTOR_GRAPH_FILE, vectorGraphFile, vectorGraphName, type StoreLocation } from '../store/location.js';

/**
 * The cache files a warm index keeps beside a SQLite store for the next process: the
 * segment file and the vector graph. A one-shot engine uses a saved graph but never builds
 * one; a long-lived one reads the rest of a segment in the background. Both walk a saved graph
 * on a second thread, which maps it while the engine reads the segment (GraphSearchThread.prepare).
 */
export function indexCacheOptions(location: StoreLocation, embedderId: string, oneShot: boolean): Pick<WarmIndexOptions, 'graphFile' | 'segmentFile' | 'buildGraph' | 'prefetch' | 'searchThread'> {
  const graphFile = vectorGraphFile(location, embedderId, 'index');
  const segment = segmentFile(location, embedderId);
  return {
    ...(graphFile ? { graphFile } : {}),
    ...(segment ? { segmentFile: segment } : {}),
    ...(oneShot ? { buildGraph: false } : { prefetch: true }),
    searchThread: true,
  };
}

/** Whether the index has a segment file for this embedder (a one-shot search then reads it instead of querying the store). */
export function hasSegment(location: StoreLocation, embedderId: string): boolean {
  const file = segmentFile(location, embedderId);
  return file !== undefined && existsSync(file);
}

/**
 * How long a temporary file of a process not running here stays untouched before gc removes it:
 * a folder shared between machines or containers may hold a save in progress of a process this
 * machine cannot see (a merge leaves its first part files untouched while it writes the rest).
 */
export const LEFTOVER_AGE_MS = 3_600_000;

/**
 * Removes the cache files (vector graphs with their key lists, segment files) of embedders
 * the store no longer uses, and the temporary files of saves whose process is gone and that
 * were untouched for LEFTOVER_AGE_MS (a live process's are a save in progress). Returns the names removed.
 */
export async function removeStaleIndexFiles(folder: string, embedderId: string): Promise<string[]> {
  const keep = new Set([vectorGraphName(embedderId, 'index'), vectorGraphName(embedderId, 'memory'), segmentName(embedderId, 'index'), segmentName(embedderId, 'memory')]);
  const removed: string[] = [];
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const file = name.replace(/\.keys$/, '');
    if (name.endsWith('.tmp')) {
      const pid = temporaryFilePid(VECTOR_GRAPH_FILE.exec(name)?.[5] ?? SEGMENT_FILE.exec(name)?.[3] ?? '');
      const touched = (await stat(join(folder, name)).catch(() => undefined))?.mtimeMs ?? Number.POSITIVE_INFINITY;
      if (pid === undefined || Date.now() - touched < LEFTOVER_AGE_MS || !temporaryFileAbandoned(join(folder, name), pid)) continue;
    } else if (keep.has(file) || !(VECTOR_GRAPH_FILE.test(file) || SEGMENT_FILE.test(file))) continue;
    await rm(join(folder, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** Bytes of the index's own cache files beside the database (segment and vector graph files, not memory's). */
export async function indexFileBytes(location: StoreLocation): Promise<number> {
  if (location.kind !== 'sqlite') return 0;
  let bytes = 0;
  for (const name of await readdir(location.folder).catch(() => [] as string[])) {
    const file = name.replace(/\.keys$/, '');
    if (name.startsWith('memory-') || !(VECTOR_GRAPH_FILE.test(file) || SEGMENT_FILE.test(file))) continue;
    bytes += (await stat(join(location.folder, name)).catch(() => undefined))?.size ?? 0;
  }
  return bytes;
}
