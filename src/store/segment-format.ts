// The segment file format: what a segment holds, its layout, and its checksums (read by segment-file.ts, written by segment-writer.ts).
import * as zlib from 'node:zlib';
import type { LexicalWeights } from './spec.js';

/** A row's path and language, shared by its slots in the lexical and the vector index. */
export interface SegmentRowMeta {
  path: string;
  language: string;
}

/**
 * A lexical index as the segment writer reads it: live rows only, renumbered 0..n-1 in slot
 * order. The row and term tables are arrays; each row's terms and each term's postings are
 * read one at a time (views of the index's own arrays where no row was removed, so saving a
 * segment holds no second copy of them). A reader adopts the file's arrays as they are.
 */
export interface LexicalSnapshot {
  rowIds: Float64Array;
  lengths: Float64Array;
  /** Row r has termOffsets[r + 1] − termOffsets[r] terms. */
  termOffsets: Uint32Array;
  /** Row r's term ids (sorted) and their weighted frequencies. */
  rowTerms(row: number): { termIds: Uint32Array; weighted: Float32Array };
  /** Every row's terms as the file lays them out (per row: ids, then weights), in pieces read again for each pass; when given, used instead of rowTerms. */
  forwardPieces?(): Iterable<Uint8Array>;
  /** Row r's metadata is metas[metaIndex[r]] (one entry per distinct path and language): objects, or packed as the file holds them (a merge of parts). */
  metaIndex: Uint32Array;
  metas: SegmentRowMeta[] | PackedMetas;
  /** Term postingTerms[t] has postingOffsets[t + 1] − postingOffsets[t] postings. */
  postingTerms: Uint32Array;
  postingOffsets: Uint32Array;
  /** Term postingTerms[t]'s postings: ascending rows and their weighted frequencies (views that may be reused by the next call: read them first). */
  postings(index: number): { slots: Int32Array; weighted: Float32Array };
  /** The largest weighted frequency in each term's postings (its MaxScore bound). */
  postingMax: Float32Array;
}

/** Row metadata packed as a segment file holds it: entry m's path is the UTF-8 bytes paths[ends[m − 1] .. ends[m]] (from 0 for m = 0), its language languages[languageIds[m]]. */
export interface PackedMetas {
  paths: Uint8Array;
  ends: Uint32Array;
  languageIds: Uint32Array;
  languages: string[];
}

/** A lexicon as a table sorted by the terms' UTF-8 bytes: term i is bytes[offsets[i] .. offsets[i + 1]], its id ids[i]. */
export interface SortedTerms {
  bytes: Buffer;
  offsets: Uint32Array;
  ids: Uint32Array;
}

/** A lexicon as a reader holds it: looked up by a term's UTF-8 bytes, listed whole when saved again. */
export interface TermTable {
  readonly count: number;
  find(key: Buffer): number | undefined;
  entries(): Array<[string, number]>;
  /** Reads (and checks) up to `blocks` more of what is read on demand; false once all is read. */
  prefetch?(blocks: number): boolean;
}

/** A TermTable over a sorted table in memory (binary search). */
export function termTableOf(table: SortedTerms): TermTable {
  const { bytes, offsets, ids } = table;
  const ends = offsets.subarray(1);
  return {
    count: ids.length,
    find(key) {
      const index = findSortedBytes(key, bytes, ends, offsets[0] as number);
      return index < 0 ? undefined : (ids[index] as number);
    },
    entries: () => Array.from(ids, (id, index) => [bytes.toString('utf8', offsets[index] as number, offsets[index + 1] as number), id]),
  };
}

/**
 * Where `key` is among byte strings sorted in byte order, or -1: string i is `bytes` from
 * ends[i − 1] (`start` for the first) to ends[i].
 */
export function findSortedBytes(key: Buffer, bytes: Buffer, ends: Uint32Array, start = 0): number {
  let low = 0;
  let high = ends.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = key.compare(bytes, middle > 0 ? (ends[middle - 1] as number) : start, ends[middle] as number);
    if (order === 0) return middle;
    if (order < 0) high = middle - 1;
    else low = middle + 1;
  }
  return -1;
}

/** Builds the sorted table of a lexicon (at save time: one sort of the terms, in UTF-8 byte order). */
export function sortTerms(entries: ReadonlyArray<readonly [string, number]>): SortedTerms {
  // UTF-16 code-unit order (JavaScript's string comparison) is UTF-8 byte order unless a term
  // holds a surrogate or a character from U+E000 up: such a term is compared by a key whose
  // code units are moved so the two orders agree (orderKey); the rest by themselves.
  const sorted = entries.map(([term, id]) => [WIDE_UNITS.test(term) ? orderKey(term) : term, term, id] as const);
  sorted.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const offsets = new Uint32Array(sorted.length + 1);
  const joined = sorted.map((entry) => entry[1]).join('');
  let bytes = Buffer.from(joined, 'utf8');
  if (bytes.length === joined.length) {
    // Every term is ASCII: one byte per character.
    sorted.forEach(([, term], index) => (offsets[index + 1] = (offsets[index] as number) + term.length));
  } else {
    sorted.forEach(([, term], index) => (offsets[index + 1] = (offsets[index] as number) + Buffer.byteLength(term, 'utf8')));
    bytes = Buffer.allocUnsafe(offsets[sorted.length] as number);
    sorted.forEach(([, term], index) => bytes.write(term, offsets[index] as number, 'utf8'));
  }
  return { bytes, offsets, ids: Uint32Array.from(sorted, (entry) => entry[2]) };
}

const WIDE_UNITS = /[\uD800-\uFFFF]/;

/**
 * A string whose UTF-16 order is `term`'s UTF-8 byte order: U+E000–U+FFFF move down to
 * U+D800–U+F7FF and surrogates up to U+F800–U+FFFF (in UTF-8 a character beyond the BMP,
 * four bytes from F0, sorts after every three-byte one; in UTF-16 its surrogates sort before
 * U+E000). Below U+D800 nothing moves.
 */
function orderKey(term: string): string {
  let key = '';
  for (let index = 0; index < term.length; index++) {
    const unit = term.charCodeAt(index);
    key += String.fromCharCode(unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);
  }
  return key;
}

/** A vector matrix too big to hold whole: its pieces in order, read again for each pass. */
export interface MatrixPieces {
  readonly byteLength: number;
  pieces(): Iterable<Float32Array>;
}

/** Live vectors as flat arrays (normalised, in slot order). */
export interface VectorSnapshot {
  rowIds: Float64Array;
  /** rowIds.length × dimensions: whole, or its pieces in order (a merge of parts hands them over one at a time). */
  matrix: Float32Array | MatrixPieces;
  /** Row r's metadata is the lexical snapshot's metas[metaIndex[r]] (one table for both). */
  metaIndex: Uint32Array;
}

/**
 * Row metadata as a reader holds it: entry `index`'s path decoded when asked for (a start
 * makes no object per path; a search decodes only the paths it returns or filters on).
 */
export interface MetaTable {
  readonly count: number;
  get(index: number): SegmentRowMeta;
  language(index: number): string;
  /** Entry `index`'s path as UTF-8 bytes, without decoding it (a view, valid while the table is open). */
  pathBytes?(index: number): Uint8Array;
  /** Each entry's language as an index into `languages`, when the table has them so (a start counts rows per language without a map lookup per entry). */
  languageIds?: Uint32Array;
  languages?: readonly string[];
  /** Reads (and checks) up to `blocks` more of what is read on demand; false once all is read. */
  prefetch?(blocks: number): boolean;
}

/** A MetaTable over metadata already in memory. */
export function metaTableOf(metas: readonly SegmentRowMeta[]): MetaTable {
  return { count: metas.length, get: (index) => metas[index] as SegmentRowMeta, language: (index) => (metas[index] as SegmentRowMeta).language };
}

/** What a reader restores a lexical index from: the row and term tables, and the postings and row terms read on demand. */
export interface LexicalBase {
  rowIds: Float64Array;
  lengths: Float64Array;
  termOffsets: Uint32Array;
  metaIndex: Uint32Array;
  metas: MetaTable;
  postingTerms: Uint32Array;
  postingOffsets: Uint32Array;
  postingMax: Float32Array;
  /** Term postingTerms[index]'s postings (slot order). */
  postings(index: number): { slots: Int32Array; weighted: Float32Array };
  /** Row `row`'s sorted terms and weighted frequencies. */
  rowTerms(row: number): { termIds: Uint32Array; weighted: Float32Array };
  /** Every row's terms at once (termOffsets index them). */
  allRowTerms(): { termIds: Uint32Array; weighted: Float32Array };
}

/** What a reader restores a vector index from: the matrix is read when first needed. */
export interface VectorBase {
  rowIds: Float64Array;
  metaIndex: Uint32Array;
  metas: MetaTable;
  matrix(): Float32Array;
  /**
   * One row of the matrix read from the file alone (a graph's candidates rescored before the
   * matrix is needed whole); not checked on its own: the matrix's checksum covers it when read.
   */
  row?(slot: number): Float32Array;
  /**
   * The matrix read a slice at a time (a long-lived process reads it between searches): each
   * `step` reads up to `bytes` more and returns the matrix once the whole is read and matches
   * its checksum (throws SegmentError when it does not).
   */
  matrixReader?(): { step(bytes: number): Float32Array | undefined };
}

/**
 * A warm index saved as one immutable file beside the SQLite catalog. SQLite stays the
 * source of truth: the file says up to which row id it holds the store (`watermark`), and
 * the reader catches up with everything committed after that. A file that is damaged, of
 * another format, of another store or of other settings is ignored and rebuilt; it is
 * written whole to a temporary name and renamed, so a crash mid-write leaves the last good
 * file in place.
 *
 * Opening reads only what every search needs (row table, term table with each term's
 * posting range and MaxScore bound, the first term of each lexicon block, each row's path
 * end and language): about a twentieth of the file. A term's postings are read (and checked
 * against their own CRC) when a query first uses the term, a lexicon block when a query
 * term falls in it, a block of paths when a search returns or filters on one of them, a
 * row's terms when the row is removed, and the vector matrix when an exact vector scan first
 * needs it; the file descriptor stays open, so a file replaced meanwhile by another process
 * (a rename) does not change what this reader sees.
 *
 * Layout (little-endian): "LOCISEG5", u32 header bytes, u32 CRC-32 of the eager region
 * (everything from byte 16 up to `eagerEnd`), the header as JSON, the eager arrays and the
 * strings JSON, then five sections: postings (per term: slots i32 × df, then weights
 * f32 × df), row terms (per row: term ids u32 × len, then weights f32 × len), the vector
 * matrix (f32), the row paths (UTF-8) and the lexicon blocks (segment-tables.ts). Arrays
 * start 8-byte aligned.
 */
export const MAGIC = 'LOCISEG5';
export const PREFIX = 16;
export const SEGMENT_VERSION = 5;

export interface SegmentHeader {
  version: number;
  /** The store the rows come from (a random id kept in the store's state). */
  storeInstance: string;
  embedderId: string;
  dimensions: number;
  weights: LexicalWeights;
  /** Every row with a smaller or equal id that was live when saved is in the file. */
  watermark: number;
  /** The lexicon is held up to this id. */
  lastLexiconId: number;
  /** The store's chunk deletion count when the rows were read (absent: unknown, so readers count rows). */
  chunkDeletions?: number;
  rows: number;
  vectors: number;
  /** Byte offset and element count of each eager array. */
  arrays: Record<ArrayName, { offset: number; length: number }>;
  /** Byte offset and length of the JSON with the strings (languages, pending vectors). */
  strings: { offset: number; length: number };
  /** End of the eager region (what the prefix CRC covers). */
  eagerEnd: number;
  postings: { offset: number; bytes: number };
  forward: { offset: number; bytes: number; crc: number };
  matrix: { offset: number; bytes: number; crc: number };
  /** Every row path's UTF-8 bytes (checked a block of PATH_BLOCK paths at a time). */
  paths: { offset: number; bytes: number };
  /** The lexicon's blocks of LEXICON_BLOCK terms (see segment-tables.ts), `terms` in all. */
  lexicon: { offset: number; bytes: number; terms: number };
}

export type ArrayName = keyof typeof ARRAY_TYPES;

/** The eager arrays, in file order. */
export const ARRAY_TYPES = {
  rowIds: Float64Array,
  lengths: Float64Array,
  termOffsets: Uint32Array,
  metaIndex: Uint32Array,
  postingTerms: Uint32Array,
  postingOffsets: Uint32Array,
  postingMax: Float32Array,
  postingCrc: Uint32Array,
  vectorRowIds: Float64Array,
  vectorMetaIndex: Uint32Array,
  metaPathEnds: Uint32Array,
  metaLanguage: Uint32Array,
  metaPathBlockCrc: Uint32Array,
  lexiconHeadEnds: Uint32Array,
  lexiconBlocks: Uint32Array,
  lexiconBlockCrc: Uint32Array,
  lexiconHeads: Uint8Array,
} as const;

export type Arrays = {
  [name in ArrayName]: (typeof ARRAY_TYPES)[name] extends Float64ArrayConstructor
    ? Float64Array
    : (typeof ARRAY_TYPES)[name] extends Float32ArrayConstructor
      ? Float32Array
      : (typeof ARRAY_TYPES)[name] extends Uint8ArrayConstructor
        ? Uint8Array
        : Uint32Array;
};

/**
 * Row metadata is stored flat, for a fast start: every path's UTF-8 bytes in one lazily read
 * section (meta m's path ends at byte `metaPathEnds[m]`, checked a block at a time and
 * decoded only when a search returns or filters on it), and its language as an index into
 * `languages`. (Version 3 held a JSON pair per meta: parsing 100k of them took ~50 ms;
 * version 4 one JSON string of every path, which a start read, parsed and cut into an object
 * per path: ~0.4 s of a first search at 1M rows. Version 5 also reads the lexicon by blocks.)
 */
export interface Strings {
  languages: string[];
  /** Rows held without a vector: row id, path, language, content hash. */
  pending: Array<[number, string, string, string]>;
}

export interface SegmentContents {
  header: Omit<SegmentHeader, 'arrays' | 'strings' | 'version' | 'rows' | 'vectors' | 'eagerEnd' | 'postings' | 'forward' | 'matrix' | 'paths' | 'lexicon'>;
  lexical: LexicalSnapshot;
  vectors: VectorSnapshot | undefined;
  lexicon: SortedTerms;
  pending: Array<{ rowId: number; meta: SegmentRowMeta; contentHash: string }>;
}

type Crc = (data: Uint8Array, value?: number) => number;
const nativeCrc = (zlib as { crc32?: Crc }).crc32;
/**
 * CRC-32 (zlib's; a table-driven fallback where this Node has none). Empty input leaves the
 * running value as it is: Node's crc32 returns 0 for an empty view of an empty buffer.
 */
export const crc32: Crc = (data, value = 0) => (data.length === 0 ? value : (nativeCrc ?? fallbackCrc)(data, value));

let table: Uint32Array | undefined;
function fallbackCrc(data: Uint8Array, value = 0): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = (value ^ 0xffffffff) >>> 0;
  for (let index = 0; index < data.length; index++) crc = ((table[(crc ^ (data[index] as number)) & 0xff] as number) ^ (crc >>> 8)) >>> 0;
  return (crc ^ 0xffffffff) >>> 0;
}

export const bytesOf = (array: ArrayBufferView): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

export class SegmentError extends Error {
  /** false: nothing is wrong with the file (this reader was closed), so it must not be deleted. */
  readonly damaged: boolean;

  constructor(message: string, options: { damaged?: boolean } = {}) {
    super(message);
    this.damaged = options.damaged ?? true;
  }
}

export function align(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}
