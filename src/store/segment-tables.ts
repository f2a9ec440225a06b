// The segment's lexicon and row paths, read a checksummed block at a time: a new process
// reads the block heads (a few hundred KB at 1M rows) instead of every term and path.
import { crc32, findSortedBytes, type MetaTable, SegmentError, type SegmentRowMeta, type SortedTerms, type TermTable } from './segment-format.js';

/** Terms per lexicon block: a lookup reads one block (~1 KB). */
export const LEXICON_BLOCK = 64;
/** Paths per path block: a result's path reads one block (~2 KB; a graph's 400 candidates at 1M rows sit in ~400 blocks). */
export const PATH_BLOCK = 32;
/** Decoded row metadata kept for repeated lookups; past this many the cache starts over (a long-lived process does not end up with an object per row). */
export const DECODED_METAS = 65_536;

/** A sorted lexicon cut into blocks: per block its ids (u32), its terms' end offsets (u32) and their bytes. */
export interface LexiconBlocks {
  /** Each block's first term, concatenated; head b ends at headEnds[b]. */
  heads: Uint8Array;
  headEnds: Uint32Array;
  /** Block b is body bytes [starts[b], starts[b + 1]). */
  starts: Uint32Array;
  crc: Uint32Array;
  body: Uint8Array;
}

export function lexiconBlocks(sorted: SortedTerms): LexiconBlocks {
  const terms = sorted.ids.length;
  const blocks = Math.ceil(terms / LEXICON_BLOCK);
  const headEnds = new Uint32Array(blocks);
  const starts = new Uint32Array(blocks + 1);
  const crc = new Uint32Array(blocks);
  let headBytes = 0;
  for (let block = 0; block < blocks; block++) {
    const first = block * LEXICON_BLOCK;
    const count = Math.min(LEXICON_BLOCK, terms - first);
    headBytes += (sorted.offsets[first + 1] as number) - (sorted.offsets[first] as number);
    headEnds[block] = headBytes;
    const termBytes = (sorted.offsets[first + count] as number) - (sorted.offsets[first] as number);
    starts[block + 1] = (starts[block] as number) + 8 * count + align4(termBytes);
  }
  const heads = new Uint8Array(headBytes);
  const body = new Uint8Array(starts[blocks] as number);
  for (let block = 0; block < blocks; block++) {
    const first = block * LEXICON_BLOCK;
    const count = Math.min(LEXICON_BLOCK, terms - first);
    const base = sorted.offsets[first] as number;
    heads.set(sorted.bytes.subarray(base, sorted.offsets[first + 1] as number), block > 0 ? (headEnds[block - 1] as number) : 0);
    const at = starts[block] as number;
    const words = new Uint32Array(body.buffer, at, 2 * count);
    for (let index = 0; index < count; index++) {
      words[index] = sorted.ids[first + index] as number;
      words[count + index] = (sorted.offsets[first + index + 1] as number) - base;
    }
    body.set(sorted.bytes.subarray(base, sorted.offsets[first + count] as number), at + 8 * count);
    crc[block] = crc32(body.subarray(at, starts[block + 1] as number)) >>> 0;
  }
  return { heads, headEnds, starts, crc, body };
}

/** Each path block's CRC over the path bytes (block b: metas b·PATH_BLOCK .. (b+1)·PATH_BLOCK − 1). */
export function pathBlockCrc(paths: Uint8Array, ends: Uint32Array): Uint32Array {
  const blocks = Math.ceil(ends.length / PATH_BLOCK);
  const out = new Uint32Array(blocks);
  for (let block = 0; block < blocks; block++) {
    const [start, end] = pathBlockRange(ends, block);
    out[block] = crc32(paths.subarray(start, end)) >>> 0;
  }
  return out;
}

function pathBlockRange(ends: Uint32Array, block: number): [number, number] {
  const first = block * PATH_BLOCK;
  const last = Math.min(ends.length, first + PATH_BLOCK) - 1;
  return [first > 0 ? (ends[first - 1] as number) : 0, ends[last] as number];
}

const align4 = (bytes: number): number => (bytes + 3) & ~3;

/** Reads `length` bytes at `position` of a lazily read section (into their own buffer, offset 0). */
export type ReadBytes = (position: number, length: number) => Uint8Array;

/**
 * The lexicon of an open segment: a lookup finds its block among the heads (in memory), then
 * reads and checks that block once (kept for later lookups). Term ids above `lastTermId`
 * make the block inconsistent.
 */
export function blockTermTable(read: ReadBytes, section: { offset: number }, tables: LexiconBlocks, terms: number, lastTermId: number): TermTable {
  const { heads, headEnds, starts, crc } = tables;
  const blocks = headEnds.length;
  const headBytes = Buffer.from(heads.buffer, heads.byteOffset, heads.byteLength);
  const loaded = new Map<number, { ids: Uint32Array; ends: Uint32Array; bytes: Buffer }>();
  const headOf = (index: number): [number, number] => [index > 0 ? (headEnds[index - 1] as number) : 0, headEnds[index] as number];
  const block = (index: number): { ids: Uint32Array; ends: Uint32Array; bytes: Buffer } => {
    let found = loaded.get(index);
    if (found) return found;
    const count = Math.min(LEXICON_BLOCK, terms - index * LEXICON_BLOCK);
    const length = (starts[index + 1] as number) - (starts[index] as number);
    const raw = read(section.offset + (starts[index] as number), length);
    if (crc32(raw) >>> 0 !== crc[index]) throw new SegmentError(`lexicon block ${index} fails its checksum`);
    const ids = new Uint32Array(raw.buffer, raw.byteOffset, count);
    const ends = new Uint32Array(raw.buffer, raw.byteOffset + 4 * count, count);
    const bytes = Buffer.from(raw.buffer, raw.byteOffset + 8 * count, length - 8 * count);
    for (let term = 0; term < count; term++) {
      const id = ids[term] as number;
      if (id < 1 || id > lastTermId || (ends[term] as number) > bytes.length || (term > 0 && (ends[term] as number) < (ends[term - 1] as number))) {
        throw new SegmentError('inconsistent segment: lexicon ids');
      }
    }
    // The head a lookup chose this block by must be its first term, or lookups miss silently.
    const [headStart, headEnd] = headOf(index);
    if (count === 0 || bytes.compare(headBytes, headStart, headEnd, 0, ends[0] as number) !== 0) throw new SegmentError('inconsistent segment: lexicon block head');
    found = { ids, ends, bytes };
    loaded.set(index, found);
    return found;
  };
  let next = 0;
  return {
    count: terms,
    find(key) {
      // The last block whose head is at or below the key.
      let low = 0;
      let high = blocks - 1;
      let at = -1;
      while (low <= high) {
        const middle = (low + high) >>> 1;
        const [start, end] = headOf(middle);
        if (key.compare(headBytes, start, end) >= 0) {
          at = middle;
          low = middle + 1;
        } else high = middle - 1;
      }
      if (at < 0) return undefined;
      const { ids, ends, bytes } = block(at);
      const index = findSortedBytes(key, bytes, ends);
      return index < 0 ? undefined : (ids[index] as number);
    },
    prefetch(count) {
      for (const end = Math.min(blocks, next + count); next < end; next++) block(next);
      return next < blocks;
    },
    entries() {
      const out: Array<[string, number]> = [];
      for (let index = 0; index < blocks; index++) {
        const { ids, ends, bytes } = block(index);
        for (let term = 0; term < ids.length; term++) out.push([bytes.toString('utf8', term > 0 ? (ends[term - 1] as number) : 0, ends[term] as number), ids[term] as number]);
      }
      return out;
    },
  };
}

/**
 * The row metadata of an open segment: an entry's language from the eager arrays, its path
 * from its block (read and checked once, then decoded entry by entry as asked for).
 */
export function blockMetaTable(read: ReadBytes, section: { offset: number }, ends: Uint32Array, blockCrc: Uint32Array, languageIds: Uint32Array, languages: readonly string[]): MetaTable {
  const languageOf = (index: number): string => languages[languageIds[index] as number] as string;
  const blocks = new Map<number, Buffer>();
  const decoded = new Map<number, SegmentRowMeta>();
  const blockCount = blockCrc.length;
  const block = (index: number): Buffer => {
    let bytes = blocks.get(index);
    if (!bytes) {
      const [start, end] = pathBlockRange(ends, index);
      const raw = read(section.offset + start, end - start);
      if (crc32(raw) >>> 0 !== blockCrc[index]) throw new SegmentError(`paths block ${index} fails its checksum`);
      bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      blocks.set(index, bytes);
    }
    return bytes;
  };
  let next = 0;
  return {
    count: ends.length,
    languageIds,
    languages,
    prefetch(count) {
      for (const end = Math.min(blockCount, next + count); next < end; next++) block(next);
      return next < blockCount;
    },
    get(index) {
      let meta = decoded.get(index);
      if (meta) return meta;
      if (!(index >= 0 && index < ends.length)) throw new SegmentError(`no row metadata ${index}`, { damaged: false });
      const at = Math.floor(index / PATH_BLOCK);
      const bytes = block(at);
      const [start] = pathBlockRange(ends, at);
      const from = (index > 0 ? (ends[index - 1] as number) : 0) - start;
      meta = { path: bytes.toString('utf8', from, (ends[index] as number) - start), language: languageOf(index) };
      if (decoded.size >= DECODED_METAS) decoded.clear();
      decoded.set(index, meta);
      return meta;
    },
    pathBytes(index) {
      if (!(index >= 0 && index < ends.length)) throw new SegmentError(`no row metadata ${index}`, { damaged: false });
      const at = Math.floor(index / PATH_BLOCK);
      const [start] = pathBlockRange(ends, at);
      return block(at).subarray((index > 0 ? (ends[index - 1] as number) : 0) - start, (ends[index] as number) - start);
    },
    language: languageOf,
  };
}
