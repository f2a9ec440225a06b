import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import {
  type LexicalSnapshot,
  type MatrixPieces,
  readSegmentHeader,
  removeAbandonedFiles,
  SegmentReader,
  type SegmentContents,
  type SortedTerms,
  sortTerms,
  temporarySuffix,
  type VectorBase,
  writeSegment,
} from '../../store/segment-file.js';
import { SEGMENT_VERSION } from '../../store/segment-format.js';
import { MetaPacker, metaPathBytes } from '../../store/segment-metas.js';
import type { Store } from '../../store/spec.js';
import { LexicalIndex } from './lexical-index.js';
import { Lexicon } from './lexicon.js';
import { FlatVectorIndex } from './vector-index.js';
import { segmentMismatch, STORE_INSTANCE_STATE } from './warm-segment.js';
import type { WarmIndexOptions } from './warm-options.js';

/**
 * Rows in one part. A fresh index of at least two parts' rows is saved part by part: each part
 * is read from the store into an index of its own, written to a file of its own and let go, and
 * the parts are merged into the segment file a term and a row at a time. The whole index is
 * never in memory at once (at 1M rows, holding it to write the file took ~3 GB more than
 * the run itself), and the file is the very one a single index of every row would write.
 */
export const PART_ROWS = 25_000;
/** Rows read from the store per step (a few milliseconds), giving the event loop a turn between steps. */
const SLICE = 1_000;

/**
 * Whether the segment file on disk is this store's, with these settings, and the store has
 * moved less than a part's rows from it (rows deleted since, and rows added since): the index
 * then reads it and catches up, as a new process does, and a small run stays a delta saved
 * past its threshold, instead of every row being read and written again.
 */
function segmentNearby(options: WarmIndexOptions & { segmentFile: string }, instance: string, count: number, deletions: number | undefined, partRows: number): boolean {
  const header = readSegmentHeader(options.segmentFile);
  // A file of another format version is rejected when read: the index would then hold every row at once.
  if (!header || header.version !== SEGMENT_VERSION || header.chunkDeletions === undefined || deletions === undefined) return false;
  const dimensions = options.embedderId !== 'none' && options.dimensions > 0 ? options.dimensions : 0;
  if (segmentMismatch(header, { storeInstance: instance, embedderId: options.embedderId, dimensions, weights: options.weights })) return false;
  const deleted = deletions - header.chunkDeletions;
  const added = count - (header.rows - deleted);
  return deleted >= 0 && added >= 0 && deleted + added < partRows;
}

/** What a part holds and where it is on disk. */
interface Part {
  file: string;
  reader: SegmentReader;
  /** The part's postings section, read front to back (terms are merged in ascending order). */
  postings: SectionReader;
  /** The part's first row in the merged order. */
  firstRow: number;
  /** The part's meta table index → the merged one (−1 until its first row is seen). */
  metaIds: Int32Array;
}

/**
 * Writes `options.segmentFile` from the store's rows, a part at a time, when the store holds at
 * least two parts' rows; false (nothing written) when it holds fewer, has no instance id yet, or
 * the file could not be written (told to `onSegment` as rejected: the file is a cache).
 * For an index that holds no row yet (a fresh build): the index then reads the file as a new
 * process would. Part files are removed whatever happens.
 */
export async function writeSegmentInParts(store: Store, options: WarmIndexOptions & { segmentFile: string }, partRows = PART_ROWS): Promise<boolean> {
  const instance = (await store.readState(STORE_INSTANCE_STATE)) || undefined;
  const count = await store.countChunks();
  if (instance === undefined || count < 2 * partRows) return false;
  // Deletions counted before the rows are read: any made meanwhile are applied by the next catch-up.
  const deletions = await store.chunkDeletions?.();
  removeAbandonedFiles(options.segmentFile);
  if (segmentNearby(options, instance, count, deletions, partRows)) return false;
  const parts: Part[] = [];
  const stem = `${options.segmentFile}.${temporarySuffix()}`;
  const started = performance.now();
  try {
    let watermark = 0;
    let rows = 0;
    for (let done = false; !done; ) {
      const part = await readPart(store, options, watermark, partRows);
      done = part.rows < partRows;
      if (part.rows === 0) break;
      watermark = part.watermark;
      const file = `${stem}.part${parts.length}.tmp`;
      writeSegment(file, { ...part.contents, header: { ...part.contents.header, storeInstance: instance } });
      const reader = SegmentReader.open(file);
      parts.push({ file, reader, postings: new SectionReader(file, reader.header.postings.offset, reader.header.postings.bytes, POSTINGS_BLOCK_BYTES), firstRow: rows, metaIds: new Int32Array(0) });
      rows += part.rows;
    }
    // After the rows: every term they use is in the lexicon now.
    const lexicon = await sortedLexicon(store);
    const lastLexiconId = lexicon.ids.reduce((last, id) => Math.max(last, id), 0);
    const header = {
      storeInstance: instance,
      embedderId: options.embedderId,
      dimensions: options.embedderId !== 'none' && options.dimensions > 0 ? options.dimensions : 0,
      weights: options.weights,
      watermark,
      lastLexiconId,
      ...(deletions !== undefined ? { chunkDeletions: deletions } : {}),
    };
    writeSegment(options.segmentFile, merged(parts, header, lexicon));
    options.onSegment?.({ type: 'segment-saved', file: options.segmentFile, rows, ms: performance.now() - started });
    return true;
  } catch (error) {
    // The file is a cache (a full disk, a read-only store folder): the index is then built from the rows as before.
    options.onSegment?.({ type: 'segment-rejected', file: options.segmentFile, rows: 0, ms: performance.now() - started, reason: `not saved in parts: ${(error as Error).message}` });
    return false;
  } finally {
    for (const part of parts) {
      part.reader.close();
      part.postings.close();
      rmSync(part.file, { force: true });
    }
  }
}

/** Up to `limit` rows after `afterRowId`, read into an index of their own, as a segment's contents (no lexicon). */
async function readPart(store: Store, options: WarmIndexOptions, afterRowId: number, limit: number): Promise<{ rows: number; watermark: number; contents: SegmentContents }> {
  const lexical = new LexicalIndex(options.weights, new Lexicon());
  const vectors = options.embedderId !== 'none' && options.dimensions > 0 ? new FlatVectorIndex(options.dimensions) : undefined;
  const pending: SegmentContents['pending'] = [];
  let watermark = afterRowId;
  let rows = 0;
  while (rows < limit) {
    const fresh = await store.scanIndexRows({ afterRowId: watermark, limit: Math.min(SLICE, limit - rows), ...(vectors ? { embedderId: options.embedderId } : {}) });
    const added = fresh.map((row) => ({ rowId: row.rowId, meta: { path: row.path, language: row.language }, terms: row.terms }));
    lexical.addMany(added);
    for (const [index, row] of fresh.entries()) {
      const meta = (added[index] as (typeof added)[number]).meta;
      // As a catch-up holds them: a vector of the index's size, else the hash its vector will come by.
      if (vectors && row.vector && row.vector.length === vectors.dimensions) vectors.add(row.rowId, row.vector, meta);
      else if (vectors && row.contentHash) pending.push({ rowId: row.rowId, meta, contentHash: row.contentHash });
      watermark = Math.max(watermark, row.rowId);
    }
    rows += fresh.length;
    if (fresh.length < SLICE) break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const snapshot = lexical.snapshot();
  const metaIds = new Map(snapshot.metas.map((meta, index) => [`${meta.language}\u0000${meta.path}`, index]));
  const vectorSnapshot = vectors ? { ...vectors.snapshot((meta) => metaIds.get(`${meta.language}\u0000${meta.path}`) as number), metas: snapshot.metas } : undefined;
  const header = {
    storeInstance: '',
    embedderId: options.embedderId,
    dimensions: vectors ? vectors.dimensions : 0,
    weights: options.weights,
    watermark,
    lastLexiconId: snapshot.postingTerms.at(-1) ?? 0,
  };
  return { rows, watermark, contents: { header, lexical: snapshot, vectors: vectorSnapshot, lexicon: sortTerms([]), pending } };
}

/**
 * The parts as one segment's contents: rows in order (each part's after the last), each term's
 * postings gathered from the parts that have it (slots moved past the rows before them), row
 * metadata numbered in the order rows first use it, and the vector matrix a part at a time.
 */
function merged(parts: Part[], header: SegmentContents['header'], lexicon: SortedTerms): SegmentContents {
  const rows = parts.reduce((sum, part) => sum + part.reader.header.rows, 0);
  const rowIds = new Float64Array(rows);
  const lengths = new Float64Array(rows);
  const termOffsets = new Uint32Array(rows + 1);
  const metaIndex = new Uint32Array(rows);
  // Numbered in the order rows first use them, as one index of every row numbers them.
  const packer = new MetaPacker(
    parts.reduce((sum, part) => sum + part.reader.lexical.metas.count, 0),
    parts.reduce((sum, part) => sum + part.reader.header.paths.bytes, 0),
  );
  const mergedMeta = (part: Part, local: number): number => {
    let id = part.metaIds[local] as number;
    if (id < 0) {
      const table = part.reader.lexical.metas;
      part.metaIds[local] = id = packer.idOf(metaPathBytes(table, local), table.language(local));
    }
    return id;
  };
  for (const part of parts) {
    const base = part.reader.lexical;
    part.metaIds = new Int32Array(base.metas.count).fill(-1);
    const count = base.rowIds.length;
    const entriesBefore = termOffsets[part.firstRow] as number;
    rowIds.set(base.rowIds, part.firstRow);
    lengths.set(base.lengths, part.firstRow);
    for (let row = 0; row < count; row++) {
      termOffsets[part.firstRow + row + 1] = entriesBefore + (base.termOffsets[row + 1] as number);
      metaIndex[part.firstRow + row] = mergedMeta(part, base.metaIndex[row] as number);
    }
  }
  // Each term with postings in any part, ascending (as one index lists them), and where it is in
  // each part: the parts' term lists walked together twice, to count the terms and then to fill
  // typed arrays of that size (a list grown term by term held twice the memory at 1M rows).
  const cursors = new Int32Array(parts.length);
  /** The smallest term at the parts' cursors (-1: every part is done). */
  const smallest = (): number => {
    let next = -1;
    parts.forEach((part, index) => {
      const term = part.reader.lexical.postingTerms[cursors[index] as number];
      if (term !== undefined && (next < 0 || term < next)) next = term;
    });
    return next;
  };
  /** Moves past `term` in every part that has it, telling `found` where it was. */
  const advance = (term: number, found: (index: number, at: number) => void = () => undefined): void => {
    parts.forEach((part, index) => {
      const at = cursors[index] as number;
      if (part.reader.lexical.postingTerms[at] !== term) return;
      found(index, at);
      cursors[index] = at + 1;
    });
  };
  let terms = 0;
  for (let term = smallest(); term >= 0; term = smallest(), terms++) advance(term);
  cursors.fill(0);
  const postingTerms = new Uint32Array(terms);
  const postingOffsets = new Uint32Array(terms + 1);
  const postingMax = new Float32Array(terms);
  for (let term = 0; term < terms; term++) {
    postingTerms[term] = smallest();
    let count = 0;
    advance(postingTerms[term] as number, (index, at) => {
      const base = (parts[index] as Part).reader.lexical;
      count += (base.postingOffsets[at + 1] as number) - (base.postingOffsets[at] as number);
      if ((base.postingMax[at] as number) > (postingMax[term] as number)) postingMax[term] = base.postingMax[at] as number;
    });
    postingOffsets[term + 1] = (postingOffsets[term] as number) + count;
  }
  // Where each part is in its own term list. The writer asks for terms in ascending order (twice),
  // so each part's place is found by walking forward from the last one: no table of every term's
  // place in every part (parts × terms entries, ~0.3 GB at 1M rows).
  const partAt = new Int32Array(parts.length);
  let lastAsked = -1;
  // One pair of arrays for every term, as big as the longest list asked for so far: the writer
  // reads each term's postings before it asks for the next (two passes over 440 MB of postings
  // at 1M rows: ~0.9 GB of short-lived arrays otherwise).
  let scratchSlots = new Int32Array(0);
  let scratchWeighted = new Float32Array(0);
  const postings = (term: number): { slots: Int32Array; weighted: Float32Array } => {
    if (term < lastAsked) partAt.fill(0);
    lastAsked = term;
    const wanted = postingTerms[term] as number;
    const count = (postingOffsets[term + 1] as number) - (postingOffsets[term] as number);
    if (count > scratchSlots.length) {
      scratchSlots = new Int32Array(count);
      scratchWeighted = new Float32Array(count);
    }
    const slots = scratchSlots.subarray(0, count);
    const weighted = scratchWeighted.subarray(0, count);
    let at = 0;
    parts.forEach((part, index) => {
      const own = part.reader.lexical.postingTerms;
      let local = partAt[index] as number;
      while (local < own.length && (own[local] as number) < wanted) local++;
      partAt[index] = local;
      if (local >= own.length || own[local] !== wanted) return;
      const offsets = part.reader.lexical.postingOffsets;
      const start = offsets[local] as number;
      const length = (offsets[local + 1] as number) - start;
      // Per term in a part's file: its slots (i32), then their weights (f32).
      const bytes = part.postings.read(8 * start, 8 * length);
      const partSlots = new Int32Array(bytes.buffer, bytes.byteOffset, length);
      for (let entry = 0; entry < length; entry++) slots[at + entry] = (partSlots[entry] as number) + part.firstRow;
      weighted.set(new Float32Array(bytes.buffer, bytes.byteOffset + 4 * length, length), at);
      at += length;
    });
    return { slots, weighted };
  };
  const rowTerms = (row: number): { termIds: Uint32Array; weighted: Float32Array } => {
    const part = parts.findLast((candidate) => candidate.firstRow <= row) as Part;
    return part.reader.lexical.rowTerms(row - part.firstRow);
  };
  // The rows' terms and the vectors are the parts' sections one after another, copied a block at a time.
  const forwardPieces = () => sections(parts, (header) => header.forward);
  const partVectors = parts.map((part) => part.reader.vectors);
  const withVectors = header.dimensions > 0 && partVectors.every((base) => base !== undefined);
  const vectorMetaIndex = new Uint32Array(withVectors ? partVectors.reduce((sum, base) => sum + (base?.metaIndex.length ?? 0), 0) : 0);
  if (withVectors) {
    let at = 0;
    parts.forEach((part, index) => {
      for (const local of (partVectors[index] as VectorBase).metaIndex) vectorMetaIndex[at++] = mergedMeta(part, local);
    });
  }
  // Every entry numbered (the vectors' too): the table as the file packs it.
  const metas = packer.packed();
  const lexical: LexicalSnapshot = { rowIds, lengths, termOffsets, rowTerms, forwardPieces, metaIndex, metas, postingTerms, postingOffsets, postings, postingMax };
  const vectors = withVectors
    ? {
        rowIds: concatenated(partVectors.map((base) => (base as VectorBase).rowIds)),
        metaIndex: vectorMetaIndex,
        matrix: {
          byteLength: parts.reduce((sum, part) => sum + part.reader.header.matrix.bytes, 0),
          *pieces() {
            for (const piece of sections(parts, (header) => header.matrix)) yield new Float32Array(piece.buffer, piece.byteOffset, piece.length / 4);
          },
        } satisfies MatrixPieces,
      }
    : undefined;
  return {
    header,
    lexical,
    vectors,
    lexicon,
    pending: parts.flatMap((part) => part.reader.pending),
  };
}

/** The store's lexicon in a segment's order: packed by the store when it can list it so, else its pairs sorted here. */
async function sortedLexicon(store: Store): Promise<SortedTerms> {
  const packed = await store.readLexiconSorted?.();
  if (packed) return { ...packed, bytes: Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength) };
  return sortTerms((await store.readLexicon(0)).map(([id, term]) => [term, id] as const));
}

/** Bytes read from a file at a time when copying a section (one part at a time). */
const BLOCK_BYTES = 8 * 1024 * 1024;
/** … and when walking a part's postings (every part's at once: 20 parts at 1M rows). */
const POSTINGS_BLOCK_BYTES = 1024 * 1024;

/**
 * One section of a part's file read front to back through a block buffer: a range inside the
 * block is a view of it (valid until the next read), a range past it refills the block from
 * there. Reading from an earlier offset starts over (the writer walks postings twice).
 */
class SectionReader {
  private readonly fd: number;
  private block: Uint8Array;
  private blockStart = 0;
  private blockLength = 0;

  constructor(
    file: string,
    private readonly start: number,
    private readonly bytes: number,
    blockBytes = BLOCK_BYTES,
  ) {
    this.fd = openSync(file, 'r');
    this.block = new Uint8Array(Math.max(8, Math.min(blockBytes, bytes)));
  }

  read(offset: number, length: number): Uint8Array {
    if (offset < 0 || offset + length > this.bytes) throw new Error(`part section: ${length} bytes at ${offset} lie outside its ${this.bytes}`);
    if (offset < this.blockStart || offset + length > this.blockStart + this.blockLength) {
      if (length > this.block.length) this.block = new Uint8Array(length);
      const wanted = Math.min(this.block.length, this.bytes - offset);
      let done = 0;
      while (done < wanted) {
        const read = readSync(this.fd, this.block, done, wanted - done, this.start + offset + done);
        if (read === 0) throw new Error('part section: the file ended early');
        done += read;
      }
      this.blockStart = offset;
      this.blockLength = wanted;
    }
    return this.block.subarray(offset - this.blockStart, offset - this.blockStart + length);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** One section of every part (`which` picks it from a part's header), in part order, a block at a time. */
function* sections(parts: Part[], which: (header: SegmentReader['header']) => { offset: number; bytes: number }): Iterable<Uint8Array> {
  for (const part of parts) {
    const { offset, bytes } = which(part.reader.header);
    const reader = new SectionReader(part.file, offset, bytes);
    try {
      for (let at = 0; at < bytes; at += BLOCK_BYTES) yield reader.read(at, Math.min(BLOCK_BYTES, bytes - at));
    } finally {
      reader.close();
    }
  }
}

function concatenated(arrays: Float64Array[]): Float64Array {
  const out = new Float64Array(arrays.reduce((sum, array) => sum + array.length, 0));
  let at = 0;
  for (const array of arrays) {
    out.set(array, at);
    at += array.length;
  }
  return out;
}
