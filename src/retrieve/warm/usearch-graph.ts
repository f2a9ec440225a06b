import { createRequire } from 'node:module';
import { chmodSync, closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { crc32 } from '../../store/segment-format.js';

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

/** An empty cosine graph with these parameters (the one shape every graph file of loci has). */
export function createGraph(module: UsearchModule, dimensions: number, options: { connectivity: number; expansionAdd: number; expansionSearch: number }): UsearchIndex {
  return new module.Index({
    metric: 'cos',
    dimensions,
    connectivity: options.connectivity,
    expansion_add: options.expansionAdd,
    expansion_search: options.expansionSearch,
    quantization: 'f16',
  });
}

/**
 * A graph file's size and CRC-32, saved at the end of its key list: usearch trusts the file it
 * maps or loads, and a truncated or damaged one crashed the process (a load of a file cut short
 * faulted; a map of one overwritten with other bytes too; a walk of one damaged in the middle
 * ran out of memory). The file is checked against it before usearch reads it.
 */
export interface GraphSum {
  bytes: number;
  crc32: number;
}

/**
 * The key list's last four int32s when it carries the sum: the graph's byte count (low and high
 * 32 bits), its CRC-32, then this mark, which is never a key (keys are row ids, never negative).
 */
const SUM_MARK = -0x4c4f4349;
const SUM_BYTES = 16;
const SUM_CHUNK = 8 * 1024 * 1024;

function sumOf(path: string): GraphSum {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(SUM_CHUNK, Math.max(1, fstatSync(fd).size)));
    let crc = 0;
    let bytes = 0;
    for (let read = readSync(fd, buffer, 0, buffer.length, null); read > 0; read = readSync(fd, buffer, 0, buffer.length, null)) {
      crc = crc32(buffer.subarray(0, read), crc);
      bytes += read;
    }
    return { bytes, crc32: crc >>> 0 };
  } finally {
    closeSync(fd);
  }
}

/** Whether the graph file at `path` is the one `sum` describes (size, then every byte; at 1M chunks ~0.5 s). */
export function graphFileIntact(path: string, sum: GraphSum): boolean {
  try {
    if (statSync(path).size !== sum.bytes) return false;
    const now = sumOf(path);
    return now.bytes === sum.bytes && now.crc32 === sum.crc32;
  } catch {
    return false;
  }
}

/**
 * Saves a graph and its key list (ascending, so opening checks it in one pass, then the graph's
 * sum), each through a temporary file and a rename, readable by the store's owner only (the
 * graph holds the store's vectors, like the database).
 */
export function writeGraphFiles(graph: UsearchIndex, unordered: Int32Array, file: string): void {
  const keys = Int32Array.from(unordered).sort();
  graph.save(`${file}.tmp`);
  chmodSync(`${file}.tmp`, 0o600);
  const sum = sumOf(`${file}.tmp`);
  const list = new Int32Array(keys.length + SUM_BYTES / 4);
  list.set(keys);
  list.set([(sum.bytes % 2 ** 32) | 0, Math.floor(sum.bytes / 2 ** 32) | 0, sum.crc32 | 0, SUM_MARK], keys.length);
  writeFileSync(`${file}.keys.tmp`, Buffer.from(list.buffer, list.byteOffset, list.byteLength), { mode: 0o600 });
  chmodSync(`${file}.keys.tmp`, 0o600); // a leftover from an interrupted save keeps its old mode
  renameSync(`${file}.tmp`, file);
  renameSync(`${file}.keys.tmp`, `${file}.keys`);
}

/** The sum in a key list's last bytes, or undefined (a list saved before sums, or not one). */
function sumIn(list: Int32Array): GraphSum | undefined {
  const at = list.length - SUM_BYTES / 4;
  if (at < 0 || list[at + 3] !== SUM_MARK) return undefined;
  return { bytes: ((list[at] as number) >>> 0) + ((list[at + 1] as number) >>> 0) * 2 ** 32, crc32: (list[at + 2] as number) >>> 0 };
}

/**
 * A saved graph's key list and its graph's sum; undefined when it is not whole 4-byte keys.
 * A list saved before sums has none: its graph is read as before, unchecked.
 */
export function readGraphKeys(file: string): { keys: Int32Array; sum: GraphSum | undefined } | undefined {
  const bytes = readFileSync(`${file}.keys`);
  if (bytes.length % 4 !== 0) return undefined;
  const list = new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const sum = sumIn(list);
  return { keys: sum ? list.subarray(0, list.length - SUM_BYTES / 4) : list, sum };
}

/** The key count and graph sum a saved key list holds, from its size and last bytes only; undefined when unreadable. */
export function graphKeysSummary(file: string): { keys: number; sum: GraphSum | undefined } | undefined {
  try {
    const fd = openSync(`${file}.keys`, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size === 0 || size % 4 !== 0) return undefined;
      const tail = Buffer.alloc(SUM_BYTES);
      const read = size >= SUM_BYTES ? readSync(fd, tail, 0, SUM_BYTES, size - SUM_BYTES) : 0;
      const sum = read === SUM_BYTES ? sumIn(new Int32Array(tail.buffer, tail.byteOffset, SUM_BYTES / 4)) : undefined;
      return { keys: size / 4 - (sum ? SUM_BYTES / 4 : 0), sum };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/**
 * Reads a saved graph into `graph` and returns its key list; undefined when either file is
 * missing, or damaged or foreign (both are then deleted: a cache is rebuilt, never trusted).
 */
export function loadGraphFiles(graph: UsearchIndex, file: string): Int32Array | undefined {
  if (!existsSync(file) || !existsSync(`${file}.keys`)) return undefined;
  try {
    const list = readGraphKeys(file);
    // An empty key list (a graph with every key removed, as an older build saved one) is not loaded: usearch fails on it.
    if (!list || list.keys.length === 0) throw new Error('not a key list');
    if (list.sum && !graphFileIntact(file, list.sum)) throw new Error('the graph file is damaged');
    graph.load(file);
    if (list.keys.length !== graph.size()) throw new Error('key list does not match the graph');
    return list.keys;
  } catch {
    rmSync(file, { force: true });
    rmSync(`${file}.keys`, { force: true });
    return undefined;
  }
}

/** A copy of `vector` scaled to unit length (the zero vector stays zero). */
export function normalized(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float32Array.from(vector, (value) => value * scale);
}
