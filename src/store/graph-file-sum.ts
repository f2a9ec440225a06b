// The vector graph's files beside a store: usearch's graph file and its key list, which ends
// with the graph's size and checksum (checked before usearch reads the graph: it trusts it).
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { crc32 } from './segment-format.js';

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
export const SUM_MARK = -0x4c4f4349;
export const SUM_BYTES = 16;
/**
 * A list saved for a store with an instance id puts the store's tag (storeTag, two int32s) and
 * this mark before the sum: seven int32s in all, SUM_MARK still last, so a version that knows
 * no tags still checks the graph against its sum (and refuses the list, whose key count is not
 * the graph's). A graph saved for another store at the same path (a store deleted and made
 * again while a process still had the old one) is never read as this store's.
 */
export const TAG_MARK = -0x4c4f4354;
export const TAGGED_BYTES = 28;
const SUM_CHUNK = 8 * 1024 * 1024;

/** A store instance id as a graph key list carries it: 8 bytes of its SHA-256, as 16 hex digits. */
export function storeTag(instance: string): string {
  return createHash('sha256').update(instance).digest('hex').slice(0, 16);
}

/** The trailer of a key list: the sum, and the store's tag when `instance` is given. */
export function keyListTrailer(sum: GraphSum, instance: string | undefined): Int32Array {
  const summed = [(sum.bytes % 2 ** 32) | 0, Math.floor(sum.bytes / 2 ** 32) | 0, sum.crc32 | 0, SUM_MARK];
  if (instance === undefined) return Int32Array.from(summed);
  const tag = storeTag(instance);
  return Int32Array.from([Number.parseInt(tag.slice(0, 8), 16) | 0, Number.parseInt(tag.slice(8), 16) | 0, TAG_MARK, ...summed]);
}

/**
 * Whether a key list saved with store tag `tag` may be read for the store of `instance`: yes
 * when they match, or when either is unknown (a list saved before tags, a store without an id).
 */
export function graphOfStore(tag: string | undefined, instance: string | undefined): boolean {
  return tag === undefined || instance === undefined || tag === storeTag(instance);
}

/** The size and CRC-32 of the file at `path`, read 8 MB at a time. */
export function graphFileSum(path: string): GraphSum {
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
    const now = graphFileSum(path);
    return now.bytes === sum.bytes && now.crc32 === sum.crc32;
  } catch {
    return false;
  }
}

/** What a key list's last int32s say: the graph's sum and the store's tag, and how many int32s they take. */
interface Trailer {
  sum: GraphSum | undefined;
  store: string | undefined;
  length: number;
}

const hex = (value: number): string => (value >>> 0).toString(16).padStart(8, '0');

/** The trailer in a key list's last int32s (`tail`: up to TAGGED_BYTES / 4 of them); none for a list saved before sums, or not one. */
function trailerIn(tail: Int32Array): Trailer {
  const end = tail.length;
  if (end < SUM_BYTES / 4 || tail[end - 1] !== SUM_MARK) return { sum: undefined, store: undefined, length: 0 };
  const at = end - SUM_BYTES / 4;
  const sum = { bytes: ((tail[at] as number) >>> 0) + ((tail[at + 1] as number) >>> 0) * 2 ** 32, crc32: (tail[at + 2] as number) >>> 0 };
  // Keys are never negative: the mark cannot be a key of a list saved without a tag.
  if (end < TAGGED_BYTES / 4 || tail[at - 1] !== TAG_MARK) return { sum, store: undefined, length: SUM_BYTES / 4 };
  return { sum, store: hex(tail[at - 3] as number) + hex(tail[at - 2] as number), length: TAGGED_BYTES / 4 };
}

/** A saved graph's key list: its keys, its graph's sum, and the tag of the store it was saved for. */
export interface GraphKeyList {
  keys: Int32Array;
  /** Absent in a list saved before sums: its graph is read as before, unchecked. */
  sum: GraphSum | undefined;
  /** storeTag of the store it was saved for; absent in a list saved before tags. */
  store: string | undefined;
}

/** A saved graph's key list; undefined when it is not whole 4-byte keys. */
export function readGraphKeys(file: string): GraphKeyList | undefined {
  const bytes = readFileSync(`${file}.keys`);
  if (bytes.length % 4 !== 0) return undefined;
  const list = new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const { sum, store, length } = trailerIn(list.subarray(Math.max(0, list.length - TAGGED_BYTES / 4)));
  return { keys: list.subarray(0, list.length - length), sum, store };
}

/** The key count, graph sum and store tag a saved key list holds, from its size and last bytes only; undefined when unreadable. */
export function graphKeysSummary(file: string): { keys: number; sum: GraphSum | undefined; store: string | undefined } | undefined {
  try {
    const fd = openSync(`${file}.keys`, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size === 0 || size % 4 !== 0) return undefined;
      const wanted = Math.min(size, TAGGED_BYTES);
      const tail = Buffer.alloc(wanted);
      if (readSync(fd, tail, 0, wanted, size - wanted) !== wanted) return undefined;
      const { sum, store, length } = trailerIn(new Int32Array(tail.buffer, tail.byteOffset, wanted / 4));
      return { keys: size / 4 - length, sum, store };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** Whether the key list saved beside the graph at `file` names another store than `instance` (a missing or unreadable one names none). */
export function foreignGraph(file: string, instance: string | undefined): boolean {
  return instance !== undefined && !graphOfStore(graphKeysSummary(file)?.store, instance);
}
