import { createRequire } from 'node:module';
import { chmodSync, existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { identifyGraphFile, sameFile, savedFilesIdentity, type MappedGraphFile } from './mapped-graph-file.js';
import { graphFileIntact, graphFileSum, graphOfStore, keyListTrailer, readGraphKeys } from '../../store/graph-file-sum.js';
import { removeAbandonedFiles, temporarySuffix } from '../../store/segment-writer.js';
import { graphQuantization } from './graph-quantization.js';

export { graphFileIntact, graphKeysSummary, readGraphKeys, type GraphSum } from '../../store/graph-file-sum.js';

const require = createRequire(import.meta.url);

export interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  search(vector: Float32Array, k: number, threads?: number): { keys: BigUint64Array; distances: Float32Array };
  remove(keys: bigint | BigUint64Array): number;
  size(): number;
  /** Vectors it holds room for; an add past it reserves more (and sets how many threads later adds may use). */
  capacity(): number;
  save(path: string): void;
  load(path: string): void;
  /** Memory-maps a saved graph: nothing is read up front, and the graph is read-only. */
  view?(path: string): void;
}

export interface UsearchModule {
  Index: new (options: { metric: string; dimensions: number; connectivity: number; expansion_add: number; expansion_search: number; quantization: string }) => UsearchIndex;
}

let usearch: UsearchModule | null | undefined;

/** Whether the optional usearch module loads here (without it, vector search scans exactly). */
export function vectorGraphAvailable(): boolean {
  return loadUsearch() !== null;
}

/** What to tell the user when usearch is missing and the index is big enough to want it. */
export const NO_VECTOR_GRAPH_WARNING =
  'The optional native module usearch is not installed, so vector search scans every vector exactly (correct, but slower on large indexes). Install it with: npm install usearch';

/** What to tell the user when the index wants a vector graph and none saved could be read (missing or damaged). */
export const NO_SAVED_GRAPH_WARNING =
  'No readable vector graph is saved for this index (missing or damaged), so vector search scans every vector exactly (correct, but slower) until it is built again: a long-lived engine (loci serve, loci mcp, the library) does that on its own; else the next `loci index` (for a store of documents, the next indexDocuments call) does.';

/** usearch is an optional native dependency; without it every search is exact. */
export function loadUsearch(): UsearchModule | null {
  if (usearch === undefined) {
    try {
      usearch = require('usearch') as UsearchModule;
    } catch {
      usearch = null;
    }
  }
  return usearch;
}

/** An empty cosine graph with these parameters (the one shape every graph file of loci has), in graphQuantization()'s type; a loaded file keeps its own. */
export function createGraph(module: UsearchModule, dimensions: number, options: { connectivity: number; expansionAdd: number; expansionSearch: number }): UsearchIndex {
  return new module.Index({
    metric: 'cos',
    dimensions,
    connectivity: options.connectivity,
    expansion_add: options.expansionAdd,
    expansion_search: options.expansionSearch,
    quantization: graphQuantization(),
  });
}

/**
 * Saves a graph and its key list (ascending, so opening checks it in one pass, then the graph's
 * sum, and the tag of the store it is saved for: storeInstance), each through a temporary file of this process (`<file>.<pid>.<random>.tmp`, so two
 * processes saving at once never write one temporary file) and a rename, readable by the
 * store's owner only (the graph holds the store's vectors, like the database). Temporary files
 * a killed save left are removed first, once their process is gone.
 */
export function writeGraphFiles(graph: UsearchIndex, unordered: Int32Array, file: string, storeInstance: string | undefined): void {
  removeAbandonedFiles(file);
  removeAbandonedFiles(`${file}.keys`);
  const keys = Int32Array.from(unordered).sort();
  const suffix = `${temporarySuffix()}.tmp`;
  const temporary = `${file}.${suffix}`;
  const keysTemporary = `${file}.keys.${suffix}`;
  try {
    graph.save(temporary);
    chmodSync(temporary, 0o600);
    const sum = graphFileSum(temporary);
    const trailer = keyListTrailer(sum, storeInstance);
    const list = new Int32Array(keys.length + trailer.length);
    list.set(keys);
    list.set(trailer, keys.length);
    writeFileSync(keysTemporary, Buffer.from(list.buffer, list.byteOffset, list.byteLength), { mode: 0o600 });
    renameSync(temporary, file);
    renameSync(keysTemporary, `${file}.keys`);
  } finally {
    // Gone once renamed; left by a failed save (a full disk), removed here.
    rmSync(temporary, { force: true });
    rmSync(keysTemporary, { force: true });
  }
}

/**
 * Reads a saved graph into `graph` and returns its key list; undefined when either file is
 * missing, damaged or foreign, or saved for another store than `storeInstance`. A graph that does not match the sum saved with its key list is
 * left in place: another process may be between its two renames (a new graph beside the old
 * list), and its next save replaces a damaged one. Any other refused pair is deleted (a cache
 * is rebuilt, never trusted).
 */
export function loadGraphFiles(graph: UsearchIndex, file: string, storeInstance: string | undefined): Int32Array | undefined {
  if (!existsSync(file) || !existsSync(`${file}.keys`)) return undefined;
  try {
    const list = readGraphKeys(file);
    // An empty key list (a graph with every key removed, as an older build saved one) is not loaded: usearch fails on it.
    if (!list || list.keys.length === 0) throw new Error('not a key list');
    // Saved for another store (one deleted and made again here): not read, and replaced by this store's next save.
    if (!graphOfStore(list.store, storeInstance)) return undefined;
    if (list.sum) {
      const identity = savedFilesIdentity(file);
      // Checked right before usearch reads it, and not replaced meanwhile.
      if (!graphFileIntact(file, list.sum) || savedFilesIdentity(file) !== identity) return undefined;
    }
    graph.load(file);
    if (list.keys.length !== graph.size()) throw new Error('key list does not match the graph');
    return list.keys;
  } catch {
    rmSync(file, { force: true });
    rmSync(`${file}.keys`, { force: true });
    return undefined;
  }
}

/** Saved graphs an index run found readable in this process, by their files' identity: not read again until either changes. */
const readableGraphs = new Map<string, string>();

/**
 * Before an index run: a saved graph no search can use is deleted, so the run builds it again
 * as it does a missing one (searches leave a damaged graph in place, as another process may be
 * between a save's two renames, and until this a no-change `loci index` never replaced it). Not
 * usable: one of the two files without the other, a key list that is not whole keys or holds
 * none, one saved for another store, a graph that does not match the size and checksum saved
 * with its list. At worst (a save
 * caught between its renames) a good graph is built again. true: something was deleted.
 */
export function dropUnreadableGraph(file: string, storeInstance: string | undefined): boolean {
  const graph = existsSync(file);
  const keys = existsSync(`${file}.keys`);
  if (!graph && !keys) return false;
  const identity = savedFilesIdentity(file);
  if (identity !== undefined && readableGraphs.get(file) === `${storeInstance}:${identity}`) return false;
  try {
    const list = graph && keys ? readGraphKeys(file) : undefined;
    const readable = list !== undefined && list.keys.length > 0 && graphOfStore(list.store, storeInstance) && (!list.sum || graphFileIntact(file, list.sum));
    // Replaced while it was read: the new files are another save's, not these.
    if (savedFilesIdentity(file) !== identity) return false;
    if (readable) {
      readableGraphs.set(file, `${storeInstance}:${identity}`);
      return false;
    }
  } catch {
    // unreadable: dropped below
  }
  readableGraphs.delete(file);
  try {
    rmSync(file, { force: true });
    rmSync(`${file}.keys`, { force: true });
  } catch {
    return false; // not ours to delete (permissions): searches keep scanning exactly
  }
  return true;
}

/**
 * Maps the identified graph file into `graph` (both threads' one rule): only while it is still
 * the file identified, and after every byte matches the sum saved with its key list, since
 * usearch trusts the file and a damaged one can crash the process. 'changed': replaced
 * meanwhile; 'damaged': not the graph its key list describes (its sum or its key count). Throws
 * what usearch throws on a file it cannot read.
 */
export function mapIdentified(graph: UsearchIndex, file: MappedGraphFile): 'mapped' | 'changed' | 'damaged' {
  if (!graph.view) throw new Error('this usearch cannot map a graph file');
  if (!sameFile(file)) return 'changed';
  if (file.sum && !graphFileIntact(file.path, file.sum)) return sameFile(file) ? 'damaged' : 'changed';
  if (!sameFile(file)) return 'changed';
  graph.view(file.path);
  if (!sameFile(file)) return 'changed';
  return graph.size() === file.keys ? 'mapped' : 'damaged';
}

/** Keeps in `keys` the rows of a graph read from its files that are live and kept their vector (not `moved`), removing the rest from it; true when any was removed. */
export function keepLiveRows(graph: UsearchIndex, saved: Iterable<number>, live: ReadonlySet<number>, moved: ReadonlySet<number> | undefined, keys: Set<number>): boolean {
  let removed = false;
  for (const rowId of saved) {
    if (live.has(rowId) && !moved?.has(rowId)) keys.add(rowId);
    else {
      graph.remove(BigInt(rowId));
      removed = true;
    }
  }
  return removed;
}

/** Adds rows to a graph in one call (usearch spreads it over `threads`; 0: its default), and their keys to `keys`. */
export function addRows(graph: UsearchIndex, rowIds: readonly number[], vectorOf: (rowId: number) => Float32Array, dimensions: number, threads: number, keys: Set<number>): void {
  if (rowIds.length === 0) return;
  const vectors = new Float32Array(rowIds.length * dimensions);
  rowIds.forEach((rowId, index) => vectors.set(vectorOf(rowId), index * dimensions));
  graph.add(
    BigUint64Array.from(rowIds, (rowId) => BigInt(rowId)),
    vectors,
    threads,
  );
  for (const rowId of rowIds) keys.add(rowId);
}

/**
 * Removes the nodes of `removed`, then adds those of `added` (their keys to `keys`), taking each
 * out of its set, for up to `budgetMs`; true while some are left.
 */
export function applyChanges(graph: UsearchIndex, changes: { removed: Set<number>; added: Set<number>; keys: Set<number> }, vectorOf: (rowId: number) => Float32Array, budgetMs: number): boolean {
  const started = performance.now();
  // Each leaves its set once applied: one usearch refuses stays pending (a removed row skipped, an added one scored exactly).
  for (const rowId of changes.removed) {
    graph.remove(BigInt(rowId));
    changes.removed.delete(rowId);
    if (performance.now() - started >= budgetMs) return true;
  }
  for (const rowId of changes.added) {
    graph.add(BigUint64Array.of(BigInt(rowId)), vectorOf(rowId));
    changes.added.delete(rowId);
    changes.keys.add(rowId);
    if (performance.now() - started >= budgetMs) break;
  }
  return changes.removed.size + changes.added.size > 0;
}

/** A copy of `vector` scaled to unit length (the zero vector stays zero). */
export function normalized(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float32Array.from(vector, (value) => value * scale);
}

/**
 * Whether the saved graph at `file` holds the live rows of `flat` but for a small delta (at most
 * `extraLimit` rows it lacks, `absentLimit` keys of rows gone), so it can be memory-mapped
 * instead of read: the file as mapping it would identify it, and that delta. undefined: it does not fit,
 * or is missing, unreadable, saved for another store than `shape.storeInstance`, or not the size saved with its key list (read, found damaged and
 * rebuilt instead).
 */
export function savedGraphFit(
  file: string,
  flat: { size: number; hasAll(keys: Int32Array): boolean; beside(keys: Int32Array, extraLimit: number, absentLimit: number): { extra: number[]; absent: number } | undefined },
  extraLimit: number,
  absentLimit: number,
  shape: Pick<MappedGraphFile, 'dimensions' | 'connectivity' | 'expansionAdd' | 'expansionSearch'> & { storeInstance?: (() => string | undefined) | undefined },
): { file: MappedGraphFile; extra: number[]; absent: number } | undefined {
  if (!existsSync(file) || !existsSync(`${file}.keys`)) return undefined;
  try {
    const list = readGraphKeys(file);
    if (!list || !graphOfStore(list.store, shape.storeInstance?.())) return undefined;
    const { keys, sum } = list;
    const delta = keys.length === flat.size && flat.hasAll(keys) ? { extra: [], absent: 0 } : flat.beside(keys, extraLimit, absentLimit);
    if (!delta) return undefined;
    const mapped = identifyGraphFile(file, keys.length, sum, shape.dimensions, shape);
    return sum && mapped.size !== sum.bytes ? undefined : { file: mapped, ...delta };
  } catch {
    return undefined;
  }
}
