import { closeSync, fsyncSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import * as zlib from 'node:zlib';
import type { LexicalWeights } from './spec.js';

/** A row's path and language, shared by its slots in the lexical and the vector index. */
export interface SegmentRowMeta {
  path: string;
  language: string;
}

/**
 * A lexical index as flat arrays (live rows only, renumbered 0..n-1 in slot order). A
 * reader adopts the arrays as they are (views, no copy): a row's terms and a term's
 * postings are slices of one array each.
 */
export interface LexicalSnapshot {
  rowIds: Float64Array;
  lengths: Float64Array;
  /** Row r's terms are termIds[termOffsets[r] .. termOffsets[r + 1]] (sorted), with their weighted frequencies. */
  termOffsets: Uint32Array;
  termIds: Uint32Array;
  weighted: Float32Array;
  /** Row r's metadata is metas[metaIndex[r]] (one entry per distinct path and language). */
  metaIndex: Uint32Array;
  metas: SegmentRowMeta[];
  /** Term postingTerms[t]'s postings are postingSlots/postingWeighted[postingOffsets[t] .. postingOffsets[t + 1]]. */
  postingTerms: Uint32Array;
  postingOffsets: Uint32Array;
  postingSlots: Int32Array;
  postingWeighted: Float32Array;
  /** The largest weighted frequency in each term's postings (its MaxScore bound). */
  postingMax: Float32Array;
}

/** A lexicon as a table sorted by the terms' UTF-8 bytes: term i is bytes[offsets[i] .. offsets[i + 1]], its id ids[i]. */
export interface SortedTerms {
  bytes: Buffer;
  offsets: Uint32Array;
  ids: Uint32Array;
}

/** Builds the sorted table of a lexicon (at save time: one sort of the terms' bytes). */
export function sortTerms(entries: ReadonlyArray<readonly [string, number]>): SortedTerms {
  const encoded = entries.map(([term, id]) => ({ bytes: Buffer.from(term, 'utf8'), id }));
  encoded.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  const offsets = new Uint32Array(encoded.length + 1);
  let total = 0;
  encoded.forEach((entry, index) => {
    total += entry.bytes.length;
    offsets[index + 1] = total;
  });
  const bytes = Buffer.allocUnsafe(total);
  encoded.forEach((entry, index) => entry.bytes.copy(bytes, offsets[index] as number));
  return { bytes, offsets, ids: Uint32Array.from(encoded, (entry) => entry.id) };
}

/** Live vectors as flat arrays (normalised, in slot order). */
export interface VectorSnapshot {
  rowIds: Float64Array;
  /** rowIds.length × dimensions. */
  matrix: Float32Array;
  /** Row r's metadata is metas[metaIndex[r]]. */
  metaIndex: Uint32Array;
  metas: SegmentRowMeta[];
}

/**
 * A warm index saved as one immutable file beside the SQLite catalog: the lexical index
 * (row terms and postings), the vectors, the lexicon and the row metadata, as flat arrays a
 * new process adopts without parsing rows. SQLite stays the source of truth: the file says
 * up to which row id it holds the store (`watermark`), and the reader catches up with
 * everything committed after that (new rows, deletions, vectors attached later). A file
 * that is damaged, of another format, of another store or of other settings is ignored
 * and rebuilt from SQLite; it is written whole to a temporary name and renamed, so a crash
 * mid-write leaves the last good file in place.
 *
 * Layout (little-endian): "LOCISEG1", u32 header bytes, u32 CRC-32 of everything after
 * the first 16 bytes (0 where zlib has no crc32), the header as JSON, then each array at an
 * 8-byte aligned offset the header gives.
 */

const MAGIC = 'LOCISEG1';
const PREFIX = 16;
export const SEGMENT_VERSION = 2;

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
  rows: number;
  vectors: number;
  /** Byte offset and element count of each array. */
  arrays: Record<ArrayName, { offset: number; length: number }>;
  /** Byte offset and length of the JSON with the strings (lexicon, paths, pending vectors). */
  strings: { offset: number; length: number };
}

type ArrayName = keyof typeof ARRAY_TYPES;

const ARRAY_TYPES = {
  rowIds: Float64Array,
  lengths: Float64Array,
  termOffsets: Uint32Array,
  termIds: Uint32Array,
  weighted: Float32Array,
  metaIndex: Uint32Array,
  postingTerms: Uint32Array,
  postingOffsets: Uint32Array,
  postingSlots: Int32Array,
  postingWeighted: Float32Array,
  postingMax: Float32Array,
  vectorRowIds: Float64Array,
  vectorMatrix: Float32Array,
  vectorMetaIndex: Uint32Array,
  lexiconOffsets: Uint32Array,
  lexiconIds: Uint32Array,
  lexiconBytes: Uint8Array,
} as const;

type Arrays = {
  [name in ArrayName]: (typeof ARRAY_TYPES)[name] extends Float64ArrayConstructor
    ? Float64Array
    : (typeof ARRAY_TYPES)[name] extends Float32ArrayConstructor
      ? Float32Array
      : (typeof ARRAY_TYPES)[name] extends Int32ArrayConstructor
        ? Int32Array
        : (typeof ARRAY_TYPES)[name] extends Uint8ArrayConstructor
          ? Uint8Array
          : Uint32Array;
};

interface Strings {
  metas: Array<[string, string]>;
  /** Rows held without a vector: row id, path, language, content hash. */
  pending: Array<[number, string, string, string]>;
}

export interface SegmentContents {
  header: Omit<SegmentHeader, 'arrays' | 'strings' | 'version' | 'rows' | 'vectors'>;
  lexical: LexicalSnapshot;
  vectors: VectorSnapshot | undefined;
  lexicon: SortedTerms;
  pending: Array<{ rowId: number; meta: SegmentRowMeta; contentHash: string }>;
}

const crc32: ((data: Uint8Array, value?: number) => number) | undefined = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** Writes a segment to `file` (mode 0600) through a temporary file and a rename. */
export function writeSegment(file: string, contents: SegmentContents): number {
  const { lexical, vectors } = contents;
  const strings: Strings = {
    metas: lexical.metas.map((meta) => [meta.path, meta.language]),
    pending: contents.pending.map(({ rowId, meta, contentHash }) => [rowId, meta.path, meta.language, contentHash]),
  };
  const arrays: Arrays = {
    rowIds: lexical.rowIds,
    lengths: lexical.lengths,
    termOffsets: lexical.termOffsets,
    termIds: lexical.termIds,
    weighted: lexical.weighted,
    metaIndex: lexical.metaIndex,
    postingTerms: lexical.postingTerms,
    postingOffsets: lexical.postingOffsets,
    postingSlots: lexical.postingSlots,
    postingWeighted: lexical.postingWeighted,
    postingMax: lexical.postingMax,
    vectorRowIds: vectors?.rowIds ?? new Float64Array(0),
    vectorMatrix: vectors?.matrix ?? new Float32Array(0),
    vectorMetaIndex: vectors?.metaIndex ?? new Uint32Array(0),
    lexiconOffsets: contents.lexicon.offsets,
    lexiconIds: contents.lexicon.ids,
    lexiconBytes: contents.lexicon.bytes,
  };
  const stringBytes = Buffer.from(JSON.stringify(strings));
  // Offsets are relative to the start of the body (after the header), fixed up below.
  let offset = 0;
  const placed = {} as SegmentHeader['arrays'];
  for (const name of Object.keys(ARRAY_TYPES) as ArrayName[]) {
    placed[name] = { offset, length: arrays[name].length };
    offset = align(offset + arrays[name].byteLength);
  }
  const stringsAt = offset;
  const bodyLength = stringsAt + stringBytes.length;
  // The header's length depends on the offsets it holds: pad it to a fixed size class.
  const draft = (base: number): Buffer =>
    Buffer.from(
      JSON.stringify({
        ...contents.header,
        version: SEGMENT_VERSION,
        rows: lexical.rowIds.length,
        vectors: vectors?.rowIds.length ?? 0,
        arrays: Object.fromEntries(Object.entries(placed).map(([name, at]) => [name, { offset: at.offset + base, length: at.length }])) as SegmentHeader['arrays'],
        strings: { offset: stringsAt + base, length: stringBytes.length },
      } satisfies SegmentHeader),
    );
  let headerBytes = align(PREFIX + draft(1 << 30).length + 16) - PREFIX;
  let header = draft(PREFIX + headerBytes);
  if (header.length > headerBytes) {
    headerBytes = align(PREFIX + header.length + 16) - PREFIX;
    header = draft(PREFIX + headerBytes);
  }
  const body = PREFIX + headerBytes;
  const prefix = Buffer.alloc(PREFIX);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes, 8);
  const headerBlock = Buffer.alloc(headerBytes, 0x20);
  header.copy(headerBlock);
  // Pieces in file order, with their padding, so the CRC is computed while writing.
  const pieces: Uint8Array[] = [headerBlock];
  let written = headerBytes;
  for (const name of Object.keys(ARRAY_TYPES) as ArrayName[]) {
    const at = placed[name].offset + body - PREFIX;
    if (at > written) pieces.push(new Uint8Array(at - written));
    const array = arrays[name];
    pieces.push(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    written = at + array.byteLength;
  }
  const stringsOffset = stringsAt + body - PREFIX;
  if (stringsOffset > written) pieces.push(new Uint8Array(stringsOffset - written));
  pieces.push(stringBytes);
  let crc = 0;
  if (crc32) for (const piece of pieces) crc = crc32(piece, crc);
  prefix.writeUInt32LE(crc >>> 0, 12);
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeAll(fd, prefix);
    for (const piece of pieces) writeAll(fd, piece);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
  return PREFIX + headerBytes + bodyLength;
}

/** Only the header (a few hundred bytes), to compare watermarks before writing. */
export function readSegmentHeader(file: string): SegmentHeader | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const prefix = Buffer.alloc(PREFIX);
    if (readSync(fd, prefix, 0, PREFIX, 0) !== PREFIX || prefix.toString('latin1', 0, 8) !== MAGIC) return undefined;
    const headerBytes = prefix.readUInt32LE(8);
    if (headerBytes > 1 << 20) return undefined;
    const header = Buffer.alloc(headerBytes);
    if (readSync(fd, header, 0, headerBytes, PREFIX) !== headerBytes) return undefined;
    return JSON.parse(header.toString('utf8')) as SegmentHeader;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export class SegmentError extends Error {}

/** Reads and checks a whole segment; throws SegmentError when it is damaged or not a segment. */
export function readSegment(file: string): SegmentContents {
  const bytes = readFileSync(file);
  // Typed arrays need aligned offsets: a pooled or offset buffer is copied once.
  const data = bytes.byteOffset % 8 === 0 ? bytes : Buffer.from(bytes);
  if (data.length < PREFIX || data.toString('latin1', 0, 8) !== MAGIC) throw new SegmentError('not a loci segment file');
  const headerBytes = data.readUInt32LE(8);
  if (PREFIX + headerBytes > data.length) throw new SegmentError('truncated header');
  const crc = data.readUInt32LE(12);
  if (crc32 && crc32(data.subarray(PREFIX)) >>> 0 !== crc) throw new SegmentError('checksum mismatch');
  let header: SegmentHeader;
  try {
    header = JSON.parse(data.toString('utf8', PREFIX, PREFIX + headerBytes)) as SegmentHeader;
  } catch {
    throw new SegmentError('unreadable header');
  }
  if (header.version !== SEGMENT_VERSION) throw new SegmentError(`segment version ${header.version}, expected ${SEGMENT_VERSION}`);
  const arrays = {} as Arrays;
  for (const name of Object.keys(ARRAY_TYPES) as ArrayName[]) {
    const at = header.arrays?.[name];
    const Type = ARRAY_TYPES[name];
    if (!at || at.offset % 8 !== 0 || at.offset + at.length * Type.BYTES_PER_ELEMENT > data.length) throw new SegmentError(`array ${name} lies outside the file`);
    (arrays as Record<string, unknown>)[name] = new Type(data.buffer, data.byteOffset + at.offset, at.length);
  }
  if (header.strings.offset + header.strings.length > data.length) throw new SegmentError('strings lie outside the file');
  const strings = JSON.parse(data.toString('utf8', header.strings.offset, header.strings.offset + header.strings.length)) as Strings;
  checkShape(header, arrays, strings);
  const metas: SegmentRowMeta[] = strings.metas.map(([path, language]) => ({ path, language }));
  return {
    header: {
      storeInstance: header.storeInstance,
      embedderId: header.embedderId,
      dimensions: header.dimensions,
      weights: header.weights,
      watermark: header.watermark,
      lastLexiconId: header.lastLexiconId,
    },
    lexical: {
      rowIds: arrays.rowIds,
      lengths: arrays.lengths,
      termOffsets: arrays.termOffsets,
      termIds: arrays.termIds,
      weighted: arrays.weighted,
      metaIndex: arrays.metaIndex,
      metas,
      postingTerms: arrays.postingTerms,
      postingOffsets: arrays.postingOffsets,
      postingSlots: arrays.postingSlots,
      postingWeighted: arrays.postingWeighted,
      postingMax: arrays.postingMax,
    },
    vectors: header.vectors > 0 || header.dimensions > 0 ? { rowIds: arrays.vectorRowIds, matrix: arrays.vectorMatrix, metaIndex: arrays.vectorMetaIndex, metas } : undefined,
    lexicon: { bytes: Buffer.from(arrays.lexiconBytes.buffer, arrays.lexiconBytes.byteOffset, arrays.lexiconBytes.byteLength), offsets: arrays.lexiconOffsets, ids: arrays.lexiconIds },
    pending: strings.pending.map(([rowId, path, language, contentHash]) => ({ rowId, meta: { path, language }, contentHash })),
  };
}

/** Bounds every index the readers follow, so a wrong but well-checksummed file cannot send them astray. */
function checkShape(header: SegmentHeader, arrays: Arrays, strings: Strings): void {
  const rows = header.rows;
  const fail = (what: string): never => {
    throw new SegmentError(`inconsistent segment: ${what}`);
  };
  if (arrays.rowIds.length !== rows || arrays.lengths.length !== rows || arrays.metaIndex.length !== rows || arrays.termOffsets.length !== rows + 1) fail('row arrays');
  if (arrays.termIds.length !== arrays.weighted.length || arrays.termOffsets[rows] !== arrays.termIds.length) fail('term arrays');
  const metaCount = strings.metas.length;
  const { termOffsets, metaIndex, postingOffsets, postingTerms, postingSlots, vectorMetaIndex, lexiconOffsets } = arrays;
  for (let row = 0; row < rows; row++) {
    if ((termOffsets[row] as number) > (termOffsets[row + 1] as number)) fail('term offsets');
    if ((metaIndex[row] as number) >= metaCount) fail('row metadata');
  }
  const terms = postingTerms.length;
  if (postingOffsets.length !== terms + 1 || postingOffsets[terms] !== postingSlots.length || postingSlots.length !== arrays.postingWeighted.length || arrays.postingMax.length !== terms)
    fail('postings');
  for (let term = 0; term < terms; term++) {
    if ((postingOffsets[term] as number) > (postingOffsets[term + 1] as number)) fail('posting offsets');
    if (term > 0 && (postingTerms[term] as number) <= (postingTerms[term - 1] as number)) fail('posting terms');
  }
  for (let index = 0; index < postingSlots.length; index++) if ((postingSlots[index] as number) >>> 0 >= rows) fail('posting slots');
  const vectors = header.vectors;
  if (arrays.vectorRowIds.length !== vectors || vectorMetaIndex.length !== vectors || arrays.vectorMatrix.length !== vectors * header.dimensions) fail('vectors');
  for (let index = 0; index < vectors; index++) if ((vectorMetaIndex[index] as number) >= metaCount) fail('vector metadata');
  const lexicon = arrays.lexiconIds.length;
  if (lexiconOffsets.length !== lexicon + 1 || lexiconOffsets[lexicon] !== arrays.lexiconBytes.length) fail('lexicon');
  for (let index = 0; index < lexicon; index++) if ((lexiconOffsets[index] as number) > (lexiconOffsets[index + 1] as number)) fail('lexicon offsets');
  for (const entry of strings.pending) if (entry.length !== 4 || typeof entry[3] !== 'string') fail('pending rows');
}

function align(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}
