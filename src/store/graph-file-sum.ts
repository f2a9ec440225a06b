// The vector graph's files beside a store: usearch's graph file and its key list, which ends
// with the graph's size and checksum (checked before usearch reads the graph: it trusts it).
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
const SUM_CHUNK = 8 * 1024 * 1024;

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
