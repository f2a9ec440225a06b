import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-alive.js';
import { packMetas } from './segment-metas.js';
import { lexiconBlocks, pathBlockCrc } from './segment-tables.js';
import { align, ARRAY_TYPES, type ArrayName, type Arrays, bytesOf, crc32, MAGIC, PREFIX, SEGMENT_VERSION, type SegmentContents, type SegmentHeader, type Strings } from './segment-format.js';

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

/** Writes a segment to `file` (mode 0600) through a temporary file (`<file>.<pid>.<random>.tmp`) and a rename; returns its size in bytes. */
export function writeSegment(file: string, contents: SegmentContents): number {
  const { lexical, vectors } = contents;
  // Packed already by a merge of parts; else packed here.
  const metas = Array.isArray(lexical.metas) ? packMetas(lexical.metas) : lexical.metas;
  const { paths: metaPaths, ends: metaPathEnds, languageIds: metaLanguage, languages } = metas;
  const strings: Strings = {
    languages,
    pending: contents.pending.map(({ rowId, meta, contentHash }) => [rowId, meta.path, meta.language, contentHash]),
  };
  const lexicon = lexiconBlocks(contents.lexicon);
  const terms = lexical.postingTerms.length;
  const postingCrc = new Uint32Array(terms);
  for (let index = 0; index < terms; index++) {
    const postings = lexical.postings(index);
    const count = (lexical.postingOffsets[index + 1] as number) - (lexical.postingOffsets[index] as number);
    if (postings.slots.length !== count || postings.weighted.length !== count)
      throw new Error(`segment snapshot: term ${lexical.postingTerms[index]} has ${postings.slots.length} postings, its offsets ${count}`);
    postingCrc[index] = crc32(bytesOf(postings.weighted), crc32(bytesOf(postings.slots)));
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
    metaPathEnds,
    metaLanguage,
    metaPathBlockCrc: pathBlockCrc(metaPaths, metaPathEnds),
    lexiconHeadEnds: lexicon.headEnds,
    lexiconBlocks: lexicon.starts,
    lexiconBlockCrc: lexicon.crc,
    lexiconHeads: lexicon.heads,
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
  const postingBytes = 8 * (lexical.postingOffsets[terms] as number);
  const forwardAt = eagerEnd + postingBytes;
  const forwardBytes = 8 * (lexical.termOffsets[lexical.rowIds.length] as number);
  const matrixAt = forwardAt + forwardBytes;
  const matrix = vectors?.matrix ?? new Float32Array(0);
  const matrixPieces = (): Iterable<Float32Array> => (matrix instanceof Float32Array ? [matrix] : matrix.pieces());
  let forwardCrc = 0;
  if (lexical.forwardPieces) {
    // Every row's terms as they lie in the file, in pieces (a merge copies its parts' sections).
    let bytes = 0;
    for (const piece of lexical.forwardPieces()) {
      forwardCrc = crc32(piece, forwardCrc);
      bytes += piece.length;
    }
    if (bytes !== forwardBytes) throw new Error(`segment snapshot: row terms of ${bytes} bytes, their offsets say ${forwardBytes}`);
  } else
    for (let row = 0; row < lexical.rowIds.length; row++) {
      const terms = lexical.rowTerms(row);
      const count = (lexical.termOffsets[row + 1] as number) - (lexical.termOffsets[row] as number);
      if (terms.termIds.length !== count || terms.weighted.length !== count) throw new Error(`segment snapshot: row ${row} has ${terms.termIds.length} terms, its offsets ${count}`);
      forwardCrc = crc32(bytesOf(terms.weighted), crc32(bytesOf(terms.termIds), forwardCrc));
    }
  let matrixCrc = 0;
  let matrixBytes = 0;
  for (const piece of matrixPieces()) {
    matrixCrc = crc32(bytesOf(piece), matrixCrc);
    matrixBytes += piece.byteLength;
  }
  if (matrixBytes !== matrix.byteLength) throw new Error(`segment snapshot: the vector matrix has ${matrixBytes} bytes, ${matrix.byteLength} announced`);
  const pathsAt = matrixAt + matrix.byteLength;
  const lexiconAt = pathsAt + metaPaths.length;
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
        paths: { offset: pathsAt + base, bytes: metaPaths.length },
        lexicon: { offset: lexiconAt + base, bytes: lexicon.body.length, terms: contents.lexicon.ids.length },
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
  const temporary = `${file}.${temporarySuffix()}.tmp`;
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
    // Each term's and row's entries as checksummed above: a snapshot is read while nothing changes it.
    for (let index = 0; index < terms; index++) {
      const postings = lexical.postings(index);
      out.write(bytesOf(postings.slots));
      out.write(bytesOf(postings.weighted));
    }
    if (lexical.forwardPieces) for (const piece of lexical.forwardPieces()) out.write(piece);
    else
      for (let row = 0; row < lexical.rowIds.length; row++) {
        const terms = lexical.rowTerms(row);
        out.write(bytesOf(terms.termIds));
        out.write(bytesOf(terms.weighted));
      }
    for (const piece of matrixPieces()) out.write(bytesOf(piece));
    out.write(metaPaths);
    out.write(lexicon.body);
    out.flush();
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
  return PREFIX + headerBytes + lexiconAt + lexicon.body.length;
}

/** The middle of a temporary file's name (`<file>.<this>.tmp`): this process's pid, which removeAbandonedFiles reads, and a random tag (two saves never share a file). */
export function temporarySuffix(): string {
  return `${process.pid}.${Math.random().toString(36).slice(2, 8)}`;
}

/** When this process started: a temporary file named by its pid but older was left by an earlier process given the same pid (a container's server is often pid 1 every run). */
const processStarted = Date.now() - process.uptime() * 1000;

/** The pid a temporary file's name carries after its file's name (`.<pid>.<tag>.tmp`); undefined for another name (the shared `.tmp` of builds before per-process names). */
export function temporaryFilePid(suffix: string): number | undefined {
  const match = /^\.([0-9]+)\.[0-9a-z]+(?:\.part[0-9]+)?\.tmp$/.exec(suffix);
  const pid = match ? Number(match[1]) : Number.NaN;
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Whether the temporary file at `path`, written by process `pid`, was left by a save that will
 * never finish: its process is gone, or it is this process's pid but the file is older than this
 * process (an earlier process given the same pid). A live process's file is a save in progress.
 */
export function temporaryFileAbandoned(path: string, pid: number): boolean {
  return pid === process.pid ? startedBefore(path) : !processAlive(pid);
}

/**
 * Temporary files of `file` that a process killed while saving left behind (`<file>.<pid>.…tmp`:
 * a merge's parts, a segment written whole, a vector graph): as big as the index, so removed
 * once that process is gone (a live process's are its own, and this process's own since it started).
 */
export function removeAbandonedFiles(file: string): void {
  const folder = dirname(file);
  const prefix = basename(file);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = temporaryFilePid(name.slice(prefix.length));
    const path = join(folder, name);
    if (pid !== undefined && temporaryFileAbandoned(path, pid)) rmSync(path, { force: true });
  }
}

/** Whether a file was last written before this process started (a second's slack for clocks that round). */
function startedBefore(path: string): boolean {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats !== undefined && stats.mtimeMs < processStarted - 1000;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}
