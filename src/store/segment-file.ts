import { closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
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

/** What a reader restores a lexical index from: the row and term tables, and the postings and row terms read on demand. */
export interface LexicalBase {
  rowIds: Float64Array;
  lengths: Float64Array;
  termOffsets: Uint32Array;
  metaIndex: Uint32Array;
  metas: SegmentRowMeta[];
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
  metas: SegmentRowMeta[];
  matrix(): Float32Array;
}

/** An in-memory snapshot as a base (tests, and a snapshot restored without a file). */
export function lexicalBaseOf(snapshot: LexicalSnapshot): LexicalBase {
  const { postingOffsets, termOffsets } = snapshot;
  return {
    ...snapshot,
    postings: (index) => ({
      slots: snapshot.postingSlots.slice(postingOffsets[index], postingOffsets[index + 1]),
      weighted: snapshot.postingWeighted.slice(postingOffsets[index], postingOffsets[index + 1]),
    }),
    rowTerms: (row) => ({ termIds: snapshot.termIds.slice(termOffsets[row], termOffsets[row + 1]), weighted: snapshot.weighted.slice(termOffsets[row], termOffsets[row + 1]) }),
    allRowTerms: () => ({ termIds: snapshot.termIds.slice(), weighted: snapshot.weighted.slice() }),
  };
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
 * posting range and MaxScore bound, the lexicon sorted by bytes, row metadata): about a
 * tenth of the file. A term's postings are read (and checked against their own CRC) when a
 * query first uses the term, a row's terms when the row is removed, and the vector matrix
 * when an exact vector scan first needs it; the file descriptor stays open, so a file
 * replaced meanwhile by another process (a rename) does not change what this reader sees.
 *
 * Layout (little-endian): "LOCISEG3", u32 header bytes, u32 CRC-32 of the eager region
 * (everything from byte 16 up to `eagerEnd`), the header as JSON, the eager arrays and the
 * strings JSON, then three sections: postings (per term: slots i32 × df, then weights
 * f32 × df), row terms (per row: term ids u32 × len, then weights f32 × len) and the
 * vector matrix (f32). Arrays start 8-byte aligned.
 */
const MAGIC = 'LOCISEG3';
const PREFIX = 16;
export const SEGMENT_VERSION = 3;

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
  /** Byte offset and element count of each eager array. */
  arrays: Record<ArrayName, { offset: number; length: number }>;
  /** Byte offset and length of the JSON with the strings (paths, pending vectors). */
  strings: { offset: number; length: number };
  /** End of the eager region (what the prefix CRC covers). */
  eagerEnd: number;
  postings: { offset: number; bytes: number };
  forward: { offset: number; bytes: number; crc: number };
  matrix: { offset: number; bytes: number; crc: number };
}

type ArrayName = keyof typeof ARRAY_TYPES;

/** The eager arrays, in file order. */
const ARRAY_TYPES = {
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
  lexiconOffsets: Uint32Array,
  lexiconIds: Uint32Array,
  lexiconBytes: Uint8Array,
} as const;

type Arrays = {
  [name in ArrayName]: (typeof ARRAY_TYPES)[name] extends Float64ArrayConstructor
    ? Float64Array
    : (typeof ARRAY_TYPES)[name] extends Float32ArrayConstructor
      ? Float32Array
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
  header: Omit<SegmentHeader, 'arrays' | 'strings' | 'version' | 'rows' | 'vectors' | 'eagerEnd' | 'postings' | 'forward' | 'matrix'>;
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
const crc32: Crc = (data, value = 0) => (data.length === 0 ? value : (nativeCrc ?? fallbackCrc)(data, value));

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

const bytesOf = (array: ArrayBufferView): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

/** Buffered sequential writes with a running position. */
class Output {
  private readonly buffer = Buffer.allocUnsafe(1 << 22);
  private used = 0;
  position = 0;

  constructor(private readonly fd: number) {}

  write(bytes: Uint8Array): void {
    this.position += bytes.length;
    if (bytes.length > this.buffer.length) {
      this.flush();
      writeAll(this.fd, bytes);
      return;
    }
    if (this.used + bytes.length > this.buffer.length) this.flush();
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  pad(): void {
    const extra = align(this.position) - this.position;
    if (extra > 0) this.write(new Uint8Array(extra));
  }

  flush(): void {
    if (this.used > 0) writeAll(this.fd, this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}

/** Writes a segment to `file` (mode 0600) through a temporary file and a rename; returns its size in bytes. */
export function writeSegment(file: string, contents: SegmentContents): number {
  const { lexical, vectors } = contents;
  const strings: Strings = {
    metas: lexical.metas.map((meta) => [meta.path, meta.language]),
    pending: contents.pending.map(({ rowId, meta, contentHash }) => [rowId, meta.path, meta.language, contentHash]),
  };
  const terms = lexical.postingTerms.length;
  const postingCrc = new Uint32Array(terms);
  for (let index = 0; index < terms; index++) {
    const start = lexical.postingOffsets[index] as number;
    const end = lexical.postingOffsets[index + 1] as number;
    postingCrc[index] = crc32(bytesOf(lexical.postingWeighted.subarray(start, end)), crc32(bytesOf(lexical.postingSlots.subarray(start, end))));
  }
  const arrays: Arrays = {
    rowIds: lexical.rowIds,
    lengths: lexical.lengths,
    termOffsets: lexical.termOffsets,
    metaIndex: lexical.metaIndex,
    postingTerms: lexical.postingTerms,
    postingOffsets: lexical.postingOffsets,
    postingMax: lexical.postingMax,
    postingCrc,
    vectorRowIds: vectors?.rowIds ?? new Float64Array(0),
    vectorMetaIndex: vectors?.metaIndex ?? new Uint32Array(0),
    lexiconOffsets: contents.lexicon.offsets,
    lexiconIds: contents.lexicon.ids,
    lexiconBytes: contents.lexicon.bytes,
  };
  const stringBytes = Buffer.from(JSON.stringify(strings));
  // Offsets relative to the body (after prefix and header), fixed up once the header's size is known.
  let offset = 0;
  const placed = {} as SegmentHeader['arrays'];
  for (const name of Object.keys(ARRAY_TYPES) as ArrayName[]) {
    placed[name] = { offset, length: arrays[name].length };
    offset = align(offset + arrays[name].byteLength);
  }
  const stringsAt = offset;
  const eagerEnd = align(stringsAt + stringBytes.length);
  const postingBytes = 8 * lexical.postingSlots.length;
  const forwardAt = eagerEnd + postingBytes;
  const forwardBytes = 8 * lexical.termIds.length;
  const matrixAt = forwardAt + forwardBytes;
  const matrix = vectors?.matrix ?? new Float32Array(0);
  let forwardCrc = 0;
  for (let row = 0; row < lexical.rowIds.length; row++) {
    const start = lexical.termOffsets[row] as number;
    const end = lexical.termOffsets[row + 1] as number;
    forwardCrc = crc32(bytesOf(lexical.weighted.subarray(start, end)), crc32(bytesOf(lexical.termIds.subarray(start, end)), forwardCrc));
  }
  const matrixCrc = crc32(bytesOf(matrix));
  const draft = (base: number): Buffer =>
    Buffer.from(
      JSON.stringify({
        ...contents.header,
        version: SEGMENT_VERSION,
        rows: lexical.rowIds.length,
        vectors: vectors?.rowIds.length ?? 0,
        arrays: Object.fromEntries(Object.entries(placed).map(([name, at]) => [name, { offset: at.offset + base, length: at.length }])) as SegmentHeader['arrays'],
        strings: { offset: stringsAt + base, length: stringBytes.length },
        eagerEnd: eagerEnd + base,
        postings: { offset: eagerEnd + base, bytes: postingBytes },
        forward: { offset: forwardAt + base, bytes: forwardBytes, crc: forwardCrc },
        matrix: { offset: matrixAt + base, bytes: matrix.byteLength, crc: matrixCrc },
      } satisfies SegmentHeader),
    );
  // The header's length depends on the offsets it holds: sized with the largest offsets first.
  let headerBytes = align(PREFIX + draft(2 ** 40).length) - PREFIX;
  const header = draft(PREFIX + headerBytes);
  if (header.length > headerBytes) headerBytes = align(PREFIX + header.length) - PREFIX;
  const final = draft(PREFIX + headerBytes);
  const headerBlock = Buffer.alloc(headerBytes, 0x20);
  final.copy(headerBlock);
  // The eager region's CRC: header, arrays (with padding) and strings.
  let crc = crc32(headerBlock);
  let at = 0;
  const padding = (to: number): void => {
    if (to > at) crc = crc32(new Uint8Array(to - at), crc);
    at = to;
  };
  for (const name of Object.keys(ARRAY_TYPES) as ArrayName[]) {
    padding(placed[name].offset);
    crc = crc32(bytesOf(arrays[name]), crc);
    at += arrays[name].byteLength;
  }
  padding(stringsAt);
  crc = crc32(stringBytes, crc);
  at += stringBytes.length;
  padding(eagerEnd);
  const prefix = Buffer.alloc(PREFIX);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes, 8);
  prefix.writeUInt32LE(crc >>> 0, 12);
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    const out = new Output(fd);
    out.write(prefix);
    out.write(headerBlock);
    for (const name of Object.keys(ARRAY_TYPES) as ArrayName[]) {
      out.write(bytesOf(arrays[name]));
      out.pad();
    }
    out.write(stringBytes);
    out.pad();
    for (let index = 0; index < terms; index++) {
      const start = lexical.postingOffsets[index] as number;
      const end = lexical.postingOffsets[index + 1] as number;
      out.write(bytesOf(lexical.postingSlots.subarray(start, end)));
      out.write(bytesOf(lexical.postingWeighted.subarray(start, end)));
    }
    for (let row = 0; row < lexical.rowIds.length; row++) {
      const start = lexical.termOffsets[row] as number;
      const end = lexical.termOffsets[row + 1] as number;
      out.write(bytesOf(lexical.termIds.subarray(start, end)));
      out.write(bytesOf(lexical.weighted.subarray(start, end)));
    }
    out.write(bytesOf(matrix));
    out.flush();
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
  return PREFIX + headerBytes + matrixAt + matrix.byteLength;
}

/** Only the header, to compare watermarks before writing. */
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

export class SegmentError extends Error {
  /** false: nothing is wrong with the file (this reader was closed), so it must not be deleted. */
  readonly damaged: boolean;

  constructor(message: string, options: { damaged?: boolean } = {}) {
    super(message);
    this.damaged = options.damaged ?? true;
  }
}

/**
 * An open segment: the eager region read and checked at open, the rest read on demand (see
 * the layout above). Methods throw SegmentError when what they read is damaged.
 */
export class SegmentReader {
  readonly header: SegmentHeader;
  readonly lexical: LexicalBase;
  readonly vectors: VectorBase | undefined;
  readonly lexicon: SortedTerms;
  readonly pending: Array<{ rowId: number; meta: SegmentRowMeta; contentHash: string }>;
  private fd: number | undefined;
  private readonly postingCrc: Uint32Array;

  private constructor(fd: number, header: SegmentHeader, arrays: Arrays, strings: Strings) {
    this.fd = fd;
    this.header = header;
    this.postingCrc = arrays.postingCrc;
    const metas: SegmentRowMeta[] = strings.metas.map(([path, language]) => ({ path, language }));
    const { postingOffsets, termOffsets } = arrays;
    const rows = header.rows;
    this.lexical = {
      rowIds: arrays.rowIds,
      lengths: arrays.lengths,
      termOffsets,
      metaIndex: arrays.metaIndex,
      metas,
      postingTerms: arrays.postingTerms,
      postingOffsets,
      postingMax: arrays.postingMax,
      postings: (index) => {
        const start = postingOffsets[index] as number;
        const count = (postingOffsets[index + 1] as number) - start;
        const bytes = this.read(header.postings.offset + 8 * start, 8 * count);
        if (crc32(bytes) >>> 0 !== this.postingCrc[index]) throw new SegmentError(`postings of term ${arrays.postingTerms[index]} fail their checksum`);
        const slots = new Int32Array(bytes.buffer, bytes.byteOffset, count);
        for (let entry = 0; entry < count; entry++) if ((slots[entry] as number) >>> 0 >= rows) throw new SegmentError('a posting points outside the rows');
        return { slots, weighted: new Float32Array(bytes.buffer, bytes.byteOffset + 4 * count, count) };
      },
      rowTerms: (row) => {
        const start = termOffsets[row] as number;
        const count = (termOffsets[row + 1] as number) - start;
        const bytes = this.read(header.forward.offset + 8 * start, 8 * count);
        return { termIds: new Uint32Array(bytes.buffer, bytes.byteOffset, count), weighted: new Float32Array(bytes.buffer, bytes.byteOffset + 4 * count, count) };
      },
      allRowTerms: () => {
        const total = termOffsets[rows] as number;
        const bytes = this.read(header.forward.offset, 8 * total);
        if (crc32(bytes) >>> 0 !== header.forward.crc) throw new SegmentError('row terms fail their checksum');
        // Per row [ids][weights] → two flat arrays indexed by termOffsets.
        const termIds = new Uint32Array(total);
        const weighted = new Float32Array(total);
        for (let row = 0; row < rows; row++) {
          const start = termOffsets[row] as number;
          const count = (termOffsets[row + 1] as number) - start;
          termIds.set(new Uint32Array(bytes.buffer, bytes.byteOffset + 8 * start, count), start);
          weighted.set(new Float32Array(bytes.buffer, bytes.byteOffset + 8 * start + 4 * count, count), start);
        }
        return { termIds, weighted };
      },
    };
    this.vectors =
      header.dimensions > 0
        ? {
            rowIds: arrays.vectorRowIds,
            metaIndex: arrays.vectorMetaIndex,
            metas,
            matrix: () => {
              const bytes = this.read(header.matrix.offset, header.matrix.bytes);
              if (crc32(bytes) >>> 0 !== header.matrix.crc) throw new SegmentError('vectors fail their checksum');
              return new Float32Array(bytes.buffer, bytes.byteOffset, header.vectors * header.dimensions);
            },
          }
        : undefined;
    this.lexicon = { bytes: Buffer.from(arrays.lexiconBytes.buffer, arrays.lexiconBytes.byteOffset, arrays.lexiconBytes.byteLength), offsets: arrays.lexiconOffsets, ids: arrays.lexiconIds };
    this.pending = strings.pending.map(([rowId, path, language, contentHash]) => ({ rowId, meta: { path, language }, contentHash }));
  }

  /** Opens and checks a segment's eager region; throws SegmentError when it is damaged or not a segment. */
  static open(file: string): SegmentReader {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const prefix = Buffer.alloc(PREFIX);
      if (readSync(fd, prefix, 0, PREFIX, 0) !== PREFIX || prefix.toString('latin1', 0, 8) !== MAGIC) throw new SegmentError('not a loci segment file (or an older format)');
      const headerBytes = prefix.readUInt32LE(8);
      if (PREFIX + headerBytes > size || headerBytes > 1 << 20) throw new SegmentError('truncated header');
      const headerBuffer = Buffer.alloc(headerBytes);
      readSync(fd, headerBuffer, 0, headerBytes, PREFIX);
      let header: SegmentHeader;
      try {
        header = JSON.parse(headerBuffer.toString('utf8')) as SegmentHeader;
      } catch {
        throw new SegmentError('unreadable header');
      }
      if (header.version !== SEGMENT_VERSION) throw new SegmentError(`segment version ${header.version}, expected ${SEGMENT_VERSION}`);
      if (!(header.eagerEnd > PREFIX + headerBytes) || header.matrix.offset + header.matrix.bytes > size) throw new SegmentError('truncated file');
      // One read of the eager region (from the start of the file, so offsets index it directly).
      const eager = Buffer.from(new ArrayBuffer(header.eagerEnd));
      if (readSync(fd, eager, 0, header.eagerEnd, 0) !== header.eagerEnd) throw new SegmentError('truncated file');
      if (crc32(eager.subarray(PREFIX)) >>> 0 !== prefix.readUInt32LE(12)) throw new SegmentError('checksum mismatch');
      const arrays = {} as Arrays;
      for (const name of Object.keys(ARRAY_TYPES) as ArrayName[]) {
        const at = header.arrays?.[name];
        const Type = ARRAY_TYPES[name];
        if (!at || at.offset % 8 !== 0 || at.offset + at.length * Type.BYTES_PER_ELEMENT > header.eagerEnd) throw new SegmentError(`array ${name} lies outside the file`);
        (arrays as Record<string, unknown>)[name] = new Type(eager.buffer, at.offset, at.length);
      }
      if (header.strings.offset + header.strings.length > header.eagerEnd) throw new SegmentError('strings lie outside the file');
      const strings = JSON.parse(eager.toString('utf8', header.strings.offset, header.strings.offset + header.strings.length)) as Strings;
      checkShape(header, arrays, strings);
      return new SegmentReader(fd, header, arrays, strings);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Reads and checks everything (loci doctor): every term's postings, every row's terms, the vectors. */
  verifyAll(): void {
    for (let index = 0; index < this.lexical.postingTerms.length; index++) this.lexical.postings(index);
    this.lexical.allRowTerms();
    this.vectors?.matrix();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private read(position: number, length: number): Uint8Array {
    if (this.fd === undefined) throw new SegmentError('the segment file was closed', { damaged: false });
    const bytes = new Uint8Array(new ArrayBuffer(length));
    let done = 0;
    while (done < length) {
      const read = readSync(this.fd, bytes, done, length - done, position + done);
      if (read === 0) throw new SegmentError('truncated file');
      done += read;
    }
    return bytes;
  }
}

/** Bounds every index the readers follow, so a wrong but well-checksummed file cannot send them astray. */
function checkShape(header: SegmentHeader, arrays: Arrays, strings: Strings): void {
  const rows = header.rows;
  const fail = (what: string): never => {
    throw new SegmentError(`inconsistent segment: ${what}`);
  };
  const { termOffsets, metaIndex, postingOffsets, postingTerms, vectorMetaIndex, lexiconOffsets } = arrays;
  if (arrays.rowIds.length !== rows || arrays.lengths.length !== rows || metaIndex.length !== rows || termOffsets.length !== rows + 1) fail('row arrays');
  const metaCount = strings.metas.length;
  for (let row = 0; row < rows; row++) {
    if ((termOffsets[row] as number) > (termOffsets[row + 1] as number)) fail('term offsets');
    if ((metaIndex[row] as number) >= metaCount) fail('row metadata');
  }
  if (8 * (termOffsets[rows] as number) !== header.forward.bytes) fail('row terms');
  const terms = postingTerms.length;
  if (postingOffsets.length !== terms + 1 || arrays.postingMax.length !== terms || arrays.postingCrc.length !== terms) fail('postings');
  if (8 * (postingOffsets[terms] as number) !== header.postings.bytes) fail('postings');
  for (let term = 0; term < terms; term++) {
    if ((postingOffsets[term] as number) > (postingOffsets[term + 1] as number)) fail('posting offsets');
    if (term > 0 && (postingTerms[term] as number) <= (postingTerms[term - 1] as number)) fail('posting terms');
  }
  if (header.postings.offset !== header.eagerEnd || header.forward.offset !== header.postings.offset + header.postings.bytes || header.matrix.offset !== header.forward.offset + header.forward.bytes)
    fail('sections');
  const vectors = header.vectors;
  if (arrays.vectorRowIds.length !== vectors || vectorMetaIndex.length !== vectors || header.matrix.bytes !== 4 * vectors * header.dimensions) fail('vectors');
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
