import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import {
  ARRAY_TYPES,
  type ArrayName,
  type Arrays,
  crc32,
  type LexicalBase,
  MAGIC,
  PREFIX,
  SEGMENT_VERSION,
  SegmentError,
  type SegmentHeader,
  type SegmentRowMeta,
  type TermTable,
  type Strings,
  type VectorBase,
} from './segment-format.js';
import { blockMetaTable, blockTermTable, LEXICON_BLOCK, PATH_BLOCK } from './segment-tables.js';

export * from './segment-format.js';
export { removeAbandonedFiles, temporarySuffix, writeSegment } from './segment-writer.js';

/** What identifies an open file: the same device, inode, size and modification time. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** Whether an open file is the one `expected` describes: segments are written whole and renamed into place, so the same inode, size and time are the same bytes. */
export function sameIdentity(found: FileIdentity, expected: FileIdentity): boolean {
  return found.dev === expected.dev && found.ino === expected.ino && found.size === expected.size && found.mtimeMs === expected.mtimeMs;
}

/** A term's slots and weighted frequencies within bytes laid out as the file's postings ([slots][weights], `count` each). */
export function postingViews(buffer: ArrayBufferLike, byteOffset: number, count: number): { slots: Int32Array; weighted: Float32Array } {
  return { slots: new Int32Array(buffer, byteOffset, count), weighted: new Float32Array(buffer, byteOffset + 4 * count, count) };
}

/** Only the header, to compare watermarks before writing. */
export function readSegmentHeader(file: string): SegmentHeader | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    if (!fstatSync(fd).isFile()) return undefined;
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

/**
 * An open segment: the eager region read and checked at open, the rest read on demand (see
 * the layout above). Methods throw SegmentError when what they read is damaged.
 */
export class SegmentReader {
  readonly header: SegmentHeader;
  readonly lexical: LexicalBase;
  readonly vectors: VectorBase | undefined;
  readonly lexicon: TermTable;
  readonly pending: Array<{ rowId: number; meta: SegmentRowMeta; contentHash: string }>;
  private fd: number | undefined;
  private readonly postingCrc: Uint32Array;

  private constructor(fd: number, header: SegmentHeader, arrays: Arrays, strings: Strings) {
    this.fd = fd;
    this.header = header;
    this.postingCrc = arrays.postingCrc;
    const read = (position: number, length: number): Uint8Array => this.read(position, length);
    const { languages } = strings;
    const metas = blockMetaTable(read, header.paths, arrays.metaPathEnds, arrays.metaPathBlockCrc, arrays.metaLanguage, languages);
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
        this.checkPostings(bytes, index);
        return postingViews(bytes.buffer, bytes.byteOffset, count);
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
            matrix: () => this.matrixReader(header).step(header.matrix.bytes) as Float32Array,
            matrixReader: () => this.matrixReader(header),
            row: (slot: number) => {
              if (!(slot >= 0 && slot < header.vectors)) throw new SegmentError(`no vector row ${slot}`, { damaged: false });
              const bytes = this.read(header.matrix.offset + slot * header.dimensions * 4, header.dimensions * 4);
              return new Float32Array(bytes.buffer, bytes.byteOffset, header.dimensions);
            },
          }
        : undefined;
    const blocks = { heads: arrays.lexiconHeads, headEnds: arrays.lexiconHeadEnds, starts: arrays.lexiconBlocks, crc: arrays.lexiconBlockCrc, body: new Uint8Array(0) };
    this.lexicon = blockTermTable(read, header.lexicon, blocks, header.lexicon.terms, header.lastLexiconId);
    this.pending = strings.pending.map(([rowId, path, language, contentHash]) => ({ rowId, meta: { path, language }, contentHash }));
  }

  /** Opens and checks a segment's eager region; throws SegmentError when it is damaged or not a segment. */
  static open(file: string, expected?: FileIdentity): SegmentReader {
    // Non-blocking, so a FIFO put at the path cannot hold the open; only a regular file is read.
    const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw new SegmentError('not a regular file', { damaged: false });
      // Another thread's reader names the file it wants: anything else at the path is refused unread (not damage: it is not that file).
      if (expected && !sameIdentity(stats, expected)) throw new SegmentError('the segment file was replaced', { damaged: false });
      const size = stats.size;
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
      if (!(header.eagerEnd > PREFIX + headerBytes) || !(header.eagerEnd <= size) || !header.lexicon || !header.paths || header.lexicon.offset + header.lexicon.bytes > size)
        throw new SegmentError('truncated file');
      // One read of the eager region (from the start of the file, so offsets index it directly).
      // Its own ArrayBuffer (offsets index it directly), not zero-filled: every byte is read next.
      const eager = Buffer.allocUnsafeSlow(header.eagerEnd);
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

  /** Reads and checks everything (loci doctor): the lexicon and path blocks, every term's postings, every row's terms, the vectors. */
  verifyAll(): void {
    this.lexicon.prefetch?.(Number.MAX_SAFE_INTEGER);
    this.lexical.metas.prefetch?.(Number.MAX_SAFE_INTEGER);
    for (let index = 0; index < this.lexical.postingTerms.length; index++) this.lexical.postings(index);
    this.lexical.allRowTerms();
    this.vectors?.matrix();
  }

  /** The open file's identity: another thread that opens the path checks it has this very file (segments are written whole and renamed into place). */
  identity(): FileIdentity {
    if (this.fd === undefined) throw new SegmentError('the segment file was closed', { damaged: false });
    const { dev, ino, size, mtimeMs } = fstatSync(this.fd);
    return { dev, ino, size, mtimeMs };
  }

  /**
   * The postings of terms [from, to) (indexes into postingTerms) in one read, each term checked
   * as postings() checks it: the bytes as the file lays them out, from postingOffsets[from]
   * (postingViews gives a term's lists).
   */
  postingRange(from: number, to: number): ArrayBuffer {
    const offsets = this.lexical.postingOffsets;
    const first = offsets[from] as number;
    const bytes = this.read(this.header.postings.offset + 8 * first, 8 * ((offsets[to] as number) - first));
    for (let index = from; index < to; index++) {
      const start = 8 * ((offsets[index] as number) - first);
      this.checkPostings(bytes.subarray(start, 8 * ((offsets[index + 1] as number) - first)), index);
    }
    return bytes.buffer as ArrayBuffer;
  }

  /** One term's postings as read: their checksum, and every slot a row of the file. */
  private checkPostings(bytes: Uint8Array, index: number): void {
    if (crc32(bytes) >>> 0 !== this.postingCrc[index]) throw new SegmentError(`postings of term ${this.lexical.postingTerms[index]} fail their checksum`);
    const rows = this.header.rows;
    const slots = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 3);
    for (let entry = 0; entry < slots.length; entry++) if ((slots[entry] as number) >>> 0 >= rows) throw new SegmentError('a posting points outside the rows');
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The vector matrix read a slice at a time, checked whole against its checksum (VectorBase.matrixReader). */
  private matrixReader(header: SegmentHeader): { step(bytes: number): Float32Array | undefined } {
    const total = header.matrix.bytes;
    const bytes = Buffer.allocUnsafeSlow(total);
    let done = 0;
    let crc = 0;
    return {
      step: (size: number) => {
        const length = Math.min(Math.max(1, size), total - done);
        if (length > 0) {
          this.readInto(bytes, done, length, header.matrix.offset + done);
          crc = crc32(bytes.subarray(done, done + length), crc);
          done += length;
        }
        if (done < total) return undefined;
        if (crc >>> 0 !== header.matrix.crc) throw new SegmentError('vectors fail their checksum');
        return new Float32Array(bytes.buffer, bytes.byteOffset, header.vectors * header.dimensions);
      },
    };
  }

  private read(position: number, length: number): Uint8Array {
    const bytes = new Uint8Array(new ArrayBuffer(length));
    this.readInto(bytes, 0, length, position);
    return bytes;
  }

  private readInto(bytes: Uint8Array, offset: number, length: number, position: number): void {
    if (this.fd === undefined) throw new SegmentError('the segment file was closed', { damaged: false });
    let done = 0;
    while (done < length) {
      const read = readSync(this.fd, bytes, offset + done, length - done, position + done);
      if (read === 0) throw new SegmentError('truncated file');
      done += read;
    }
  }
}

/** Bounds every index the readers follow, so a wrong but well-checksummed file cannot send them astray. */
function checkShape(header: SegmentHeader, arrays: Arrays, strings: Strings): void {
  const rows = header.rows;
  const fail = (what: string): never => {
    throw new SegmentError(`inconsistent segment: ${what}`);
  };
  const { termOffsets, metaIndex, postingOffsets, postingTerms, vectorMetaIndex } = arrays;
  if (arrays.rowIds.length !== rows || arrays.lengths.length !== rows || metaIndex.length !== rows || termOffsets.length !== rows + 1) fail('row arrays');
  const { metaPathEnds, metaLanguage } = arrays;
  const metaCount = metaPathEnds.length;
  if (metaLanguage.length !== metaCount || !Array.isArray(strings.languages)) fail('row metadata');
  const languageCount = strings.languages.length;
  for (let meta = 0; meta < metaCount; meta++) {
    if ((metaLanguage[meta] as number) >= languageCount || (meta > 0 && (metaPathEnds[meta] as number) < (metaPathEnds[meta - 1] as number))) fail('row metadata');
  }
  if ((metaCount > 0 ? metaPathEnds[metaCount - 1] : 0) !== header.paths.bytes || arrays.metaPathBlockCrc.length !== Math.ceil(metaCount / PATH_BLOCK)) fail('row metadata');
  if (!strings.languages.every((language) => typeof language === 'string')) fail('row metadata');
  const { rowIds } = arrays;
  const watermark = header.watermark;
  // One pass per array length (these run once per process start, over every row and term).
  for (let row = 0; row < rows; row++) {
    const rowId = rowIds[row] as number;
    if ((termOffsets[row] as number) > (termOffsets[row + 1] as number) || (metaIndex[row] as number) >= metaCount || !(rowId >= 1 && rowId <= watermark)) fail('rows');
  }
  if (8 * (termOffsets[rows] as number) !== header.forward.bytes) fail('row terms');
  const terms = postingTerms.length;
  if (postingOffsets.length !== terms + 1 || arrays.postingMax.length !== terms || arrays.postingCrc.length !== terms) fail('postings');
  if (8 * (postingOffsets[terms] as number) !== header.postings.bytes) fail('postings');
  // Term and row ids size arrays indexed by them: none may exceed what the header says was read from the store.
  const lastTerm = header.lastLexiconId;
  // Posting terms strictly increase, so the first and last bound them all.
  if (terms > 0 && ((postingTerms[0] as number) < 1 || (postingTerms[terms - 1] as number) > lastTerm)) fail('posting terms');
  for (let term = 0; term < terms; term++) {
    if ((postingOffsets[term] as number) > (postingOffsets[term + 1] as number) || (term > 0 && (postingTerms[term] as number) <= (postingTerms[term - 1] as number))) fail('postings');
  }
  if (header.postings.offset !== header.eagerEnd || header.forward.offset !== header.postings.offset + header.postings.bytes || header.matrix.offset !== header.forward.offset + header.forward.bytes)
    fail('sections');
  const vectors = header.vectors;
  if (arrays.vectorRowIds.length !== vectors || vectorMetaIndex.length !== vectors || header.matrix.bytes !== 4 * vectors * header.dimensions) fail('vectors');
  for (let index = 0; index < vectors; index++) if ((vectorMetaIndex[index] as number) >= metaCount) fail('vector metadata');
  if (header.paths.offset !== header.matrix.offset + header.matrix.bytes || header.lexicon.offset !== header.paths.offset + header.paths.bytes) fail('sections');
  // Lexicon blocks: LEXICON_BLOCK terms each (the last one the rest), each long enough for its ids and ends.
  const { lexiconHeadEnds, lexiconBlocks, lexiconBlockCrc } = arrays;
  const lexiconTerms = header.lexicon.terms;
  const blocks = Math.ceil(lexiconTerms / LEXICON_BLOCK);
  if (!Number.isSafeInteger(lexiconTerms) || lexiconTerms < 0 || lexiconHeadEnds.length !== blocks || lexiconBlocks.length !== blocks + 1 || lexiconBlockCrc.length !== blocks) fail('lexicon');
  if (lexiconBlocks[0] !== 0 || lexiconBlocks[blocks] !== header.lexicon.bytes || (blocks > 0 ? lexiconHeadEnds[blocks - 1] : 0) !== arrays.lexiconHeads.length) fail('lexicon');
  for (let block = 0; block < blocks; block++) {
    const count = Math.min(LEXICON_BLOCK, lexiconTerms - block * LEXICON_BLOCK);
    if ((lexiconBlocks[block + 1] as number) - (lexiconBlocks[block] as number) < 8 * count || (block > 0 && (lexiconHeadEnds[block] as number) < (lexiconHeadEnds[block - 1] as number)))
      fail('lexicon');
  }
  for (const entry of strings.pending) if (entry.length !== 4 || typeof entry[3] !== 'string') fail('pending rows');
}
