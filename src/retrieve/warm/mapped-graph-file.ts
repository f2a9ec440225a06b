import { statSync } from 'node:fs';
import { graphKeysSummary, graphOfStore, type GraphSum } from '../../store/graph-file-sum.js';
import { sameIdentity } from '../../store/segment-file.js';

/**
 * A saved graph file as one thread mapped it: another thread searching "the same graph" maps
 * this file only while it is still this one (same inode, size and time), with the same shape.
 */
export interface MappedGraphFile {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Keys the mapped graph holds. */
  keys: number;
  dimensions: number;
  connectivity: number;
  expansionAdd: number;
  expansionSearch: number;
  /** The graph's size and checksum saved with its key list (absent for a graph saved before sums): checked before usearch reads the file. */
  sum?: GraphSum;
}

export interface GraphSearchRequest {
  id: number;
  file: MappedGraphFile;
  /** The query, unit length (as the calling thread searches its own graph). */
  vector: Float32Array;
  k: number;
}

/** A search's reply: the candidates' row ids best first and their graph distances (graph-candidates.ts), or why there are none. */
export type GraphSearchReply = { ready: true; id?: undefined; keys?: undefined } | { id: number; keys: BigUint64Array; distances: Float32Array } | { id: number; error: string; keys?: undefined };

/** Everything that tells one mapped file (and the graph's shape) from another. */
export function graphFileKey(file: MappedGraphFile): string {
  return [file.path, file.dev, file.ino, file.size, file.mtimeMs, file.keys, file.dimensions, file.connectivity, file.expansionAdd, file.expansionSearch, file.sum?.bytes, file.sum?.crc32].join('\0');
}

/** The file's identity now (throws when it is gone). */
export function fileIdentity(path: string): Pick<MappedGraphFile, 'path' | 'dev' | 'ino' | 'size' | 'mtimeMs'> {
  const stat = statSync(path);
  return { path, dev: stat.dev, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
}

/** The graph file at `path` as mapping it would identify it now (throws when it is gone). */
export function identifyGraphFile(
  path: string,
  keys: number,
  sum: GraphSum | undefined,
  dimensions: number,
  shape: Pick<MappedGraphFile, 'connectivity' | 'expansionAdd' | 'expansionSearch'>,
): MappedGraphFile {
  const { connectivity, expansionAdd, expansionSearch } = shape;
  return { ...fileIdentity(path), keys, dimensions, connectivity, expansionAdd, expansionSearch, ...(sum ? { sum } : {}) };
}

/** identifyGraphFile for the saved graph at `path` as its key list describes it; undefined when it is missing, empty, unreadable or saved for another store than `storeInstance`. */
export function identifySavedGraph(
  path: string,
  dimensions: number,
  shape: Pick<MappedGraphFile, 'connectivity' | 'expansionAdd' | 'expansionSearch'>,
  storeInstance: string | undefined,
): MappedGraphFile | undefined {
  const summary = graphKeysSummary(path);
  try {
    return summary && summary.keys > 0 && graphOfStore(summary.store, storeInstance) ? identifyGraphFile(path, summary.keys, summary.sum, dimensions, shape) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the file at `file.path` is still the one identified. */
export function sameFile(file: MappedGraphFile): boolean {
  return sameIdentity(fileIdentity(file.path), file);
}

/** The graph file's and its key list's identities (device, inode, size, time), or undefined when either is missing. */
export function savedFilesIdentity(file: string): string | undefined {
  try {
    return [file, `${file}.keys`]
      .map((path) => {
        const { dev, ino, size, mtimeMs } = fileIdentity(path);
        return `${dev}:${ino}:${size}:${mtimeMs}`;
      })
      .join('|');
  } catch {
    return undefined;
  }
}
