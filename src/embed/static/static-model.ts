import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { LociError } from '../../errors/index.js';
import { LEXICAL_FIELDS, type ChunkTermStats, type LexicalField, type TermList } from '../../lexical/codec.js';
import { tokenize } from '../../lexical/tokenize.js';

/** A loaded static embedding table: int8 rows with per-row scales, keyed by token. */
export interface StaticModel {
  dimensions: number;
  /** First 12 hex digits of the file's sha256: a retrained model gets a new embedder id. */
  digest: string;
  embed(text: string, purpose: 'query' | 'document'): Float32Array;
  /**
   * Embeds texts from their term counts (lexical/codec.ts), when a text's tokens are those of
   * `fields`: the same vectors as `embed`, for an indexer that has counted them already.
   */
  termStatsEmbedder(fields: readonly LexicalField[], purpose: 'query' | 'document'): (stats: ChunkTermStats) => Float32Array;
}

interface Header {
  format: string;
  version: number;
  dimensions: number;
  vocabularySize: number;
  tokenizer: string;
  quantization: string;
}

const MAGIC = 'LOCISTAT';
/** Token lookups answered by scanning the vocabulary before the lookup map is built. */
const SCANS_BEFORE_MAP = 32;

/** Rows read one at a time (a one-shot process embeds one query) before the whole table is read. */
const ROW_READS_BEFORE_LOAD = 256;

export interface LoadStaticModelOptions {
  /**
   * The file's digest when it is already known (the model shipped with loci, checked by its
   * tests): the file is then not hashed, and its rows are read as lookups need them until
   * enough have been (a one-shot search reads ~100 KB of a 9 MB file). Without it the whole
   * file is read and hashed at load.
   */
  digest?: string;
}

/**
 * Reads the file written by scripts/embedder/train.py: magic, header and vocabulary
 * lengths, JSON header, newline-separated vocabulary, padding to 4 bytes, then float32
 * row scales, float32 query-side and document-side token importance, and int8 rows. A
 * text's vector is the importance-weighted sum of its tokens' rows, L2-normalised.
 */
export function loadStaticModel(file: string, options: LoadStaticModelOptions = {}): StaticModel {
  const source = options.digest ? lazyTable(file, options.digest) : eagerTable(file);
  const { dimensions, vocabularySize, tokens, scales, queryWeights, documentWeights } = source;
  // The token → row map takes ~13 ms to build (60k tokens); a one-shot search embeds one
  // query, so the first few lookups scan the vocabulary (~0.2 ms each) and the map is built
  // once lookups add up. lastIndexOf: a repeated token maps to its last row, as the map does.
  let idOf: Map<string, number> | undefined;
  let scans = 0;
  const rowOf = (token: string): number | undefined => {
    if (idOf) return idOf.get(token);
    if (++scans > SCANS_BEFORE_MAP) {
      const map = new Map<string, number>();
      tokens.forEach((known, index) => map.set(known, index));
      idOf = map;
      return map.get(token);
    }
    const id = tokens.lastIndexOf(token);
    return id < 0 ? undefined : id;
  };
  const { digest, row } = source;

  // A token repeated in a text adds its row once, times its count: code repeats its words (the
  // peer bench's code chunks: 2.0 tokens per distinct one), and the rows are the whole cost.
  const addRow = (vector: Float32Array, id: number, count: number, weights: Float32Array): void => {
    const scale = (scales[id] as number) * (weights[id] as number) * count;
    const { rows, base } = row(id);
    for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] as number) + scale * (rows[base + index] as number);
  };
  const normalize = (vector: Float32Array): Float32Array => {
    let norm = 0;
    for (const value of vector) norm += value * value;
    if (norm > 0) {
      const inverse = 1 / Math.sqrt(norm);
      for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] as number) * inverse;
    }
    return vector;
  };
  const counts = new Uint32Array(vocabularySize);
  const seen: number[] = [];
  const embedTokens = (tokens: readonly string[], purpose: 'query' | 'document'): Float32Array => {
    const vector = new Float32Array(dimensions);
    const weights = purpose === 'query' ? queryWeights : documentWeights;
    seen.length = 0;
    for (const token of tokens) {
      const id = rowOf(token);
      if (id === undefined) continue;
      if (counts[id] === 0) seen.push(id);
      counts[id] = (counts[id] as number) + 1;
    }
    try {
      for (const id of seen) addRow(vector, id, counts[id] as number, weights);
    } finally {
      // Zeroed even when a row read fails part-way, so the next text counts from zero.
      for (const id of seen) counts[id] = 0;
    }
    return normalize(vector);
  };

  // Each term list's rows by list index (row + 1; -1: not in the vocabulary; 0: not looked up
  // yet): a list is append-only, so each of an indexing run's terms is looked up once per run.
  const rowsByList = new WeakMap<TermList, Int32Array>();
  const embedTermStats = (stats: ChunkTermStats, fields: readonly number[], purpose: 'query' | 'document'): Float32Array => {
    const vector = new Float32Array(dimensions);
    const weights = purpose === 'query' ? queryWeights : documentWeights;
    const { table, refs, counts: termCounts } = stats;
    let known = rowsByList.get(table);
    if (!known || known.length < table.terms.length) {
      const grown = new Int32Array(Math.max(64, table.terms.length, 2 * (known?.length ?? 0)));
      if (known) grown.set(known);
      rowsByList.set(table, (known = grown));
    }
    // refs are first-seen in the embedded text's order (TermTable.count): the order embedTokens sums in.
    for (let slot = 0; slot < refs.length; slot++) {
      let count = 0;
      for (const field of fields) count += termCounts[4 * slot + field] as number;
      if (count === 0) continue;
      const ref = refs[slot] as number;
      let id = known[ref] as number;
      if (id === 0) {
        const term = table.terms[ref];
        if (term === undefined) throw new Error(`Term ${ref} is not in its list (${table.terms.length} terms).`);
        id = (rowOf(term) ?? -2) + 1;
        known[ref] = id;
      }
      if (id > 0) addRow(vector, id - 1, count, weights);
    }
    return normalize(vector);
  };
  return {
    dimensions,
    digest,
    embed: (text, purpose) => embedTokens(tokenize(text), purpose),
    termStatsEmbedder: (fields, purpose) => {
      const slots = fields.map((field) => LEXICAL_FIELDS.indexOf(field));
      return (stats) => embedTermStats(stats, slots, purpose);
    },
  };
}

interface Table {
  dimensions: number;
  vocabularySize: number;
  tokens: string[];
  scales: Float32Array;
  queryWeights: Float32Array;
  documentWeights: Float32Array;
  digest: string;
  /** Token `id`'s int8 row: `rows[base .. base + dimensions)`. */
  row(id: number): { rows: Int8Array; base: number };
}

const NOT_A_MODEL_HINT =
  '`static:<file>` loads a model file written by scripts/embedder/train.py (a relative path in a config file is read from beside that file, in a flag or variable from the current folder); `static` alone uses the model shipped with loci.';

/** Where a model file's parts lie, from its first bytes (throws EMBEDDER_UNAVAILABLE when they are not a model's). */
function layoutOf(file: string, front: Buffer, size: number): { header: Header; vocabularyStart: number; vocabularyLength: number; tables: number } {
  if (front.length < 16 || front.toString('latin1', 0, 8) !== MAGIC) {
    throw new LociError('EMBEDDER_UNAVAILABLE', `${file} is not a loci static embedding model.`, { hint: NOT_A_MODEL_HINT });
  }
  const headerLength = front.readUInt32LE(8);
  const vocabularyLength = front.readUInt32LE(12);
  if (16 + headerLength > front.length) throw new LociError('EMBEDDER_UNAVAILABLE', `${file} is truncated or inconsistent.`, { hint: NOT_A_MODEL_HINT });
  let header: Header;
  try {
    header = JSON.parse(front.toString('utf8', 16, 16 + headerLength)) as Header;
  } catch {
    throw new LociError('EMBEDDER_UNAVAILABLE', `${file} has an unreadable static model header.`, { hint: NOT_A_MODEL_HINT });
  }
  if (header.format !== 'loci-static-embedder' || header.version !== 2 || header.quantization !== 'int8-rowwise') {
    throw new LociError('EMBEDDER_UNAVAILABLE', `${file} has an unsupported static model format (${header.format} v${header.version}).`);
  }
  const vocabularyStart = 16 + headerLength;
  let tables = vocabularyStart + vocabularyLength;
  tables += (4 - (tables % 4)) % 4;
  const { dimensions, vocabularySize } = header;
  if (!(Number.isSafeInteger(dimensions) && dimensions > 0 && Number.isSafeInteger(vocabularySize) && vocabularySize > 0) || size !== tables + vocabularySize * 12 + vocabularySize * dimensions) {
    throw new LociError('EMBEDDER_UNAVAILABLE', `${file} is truncated or inconsistent.`, { hint: NOT_A_MODEL_HINT });
  }
  return { header, vocabularyStart, vocabularyLength, tables };
}

function vocabulary(file: string, bytes: Buffer, start: number, length: number, size: number): string[] {
  const tokens = bytes.toString('utf8', start, start + length).split('\n');
  if (tokens.length !== size) throw new LociError('EMBEDDER_UNAVAILABLE', `${file} is truncated or inconsistent.`, { hint: NOT_A_MODEL_HINT });
  return tokens;
}

function unreadable(file: string, error: unknown): LociError {
  // A model file that is not there is a wrong setting (exit 2), not a missing capability.
  const missing = ['ENOENT', 'ENOTDIR', 'EISDIR'].includes(String((error as { code?: unknown }).code));
  return new LociError(missing ? 'EMBEDDER_UNKNOWN' : 'EMBEDDER_UNAVAILABLE', `Cannot read the static embedding model at ${file}: ${(error as Error).message}.`, {
    cause: error,
    hint: NOT_A_MODEL_HINT,
  });
}

/** The whole file read and hashed at once. */
function eagerTable(file: string): Table {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw unreadable(file, error);
  }
  const { header, vocabularyStart, vocabularyLength, tables } = layoutOf(file, bytes, bytes.length);
  const { dimensions, vocabularySize } = header;
  const tokens = vocabulary(file, bytes, vocabularyStart, vocabularyLength, vocabularySize);
  // Views straight into the file's bytes when they are 4-byte aligned (a large read is its own
  // allocation, so they are): no 9 MB copy on every start.
  let buffer = bytes.buffer;
  let base = bytes.byteOffset + tables;
  if (base % 4 !== 0) {
    const copy = new Uint8Array(bytes.length - tables);
    copy.set(bytes.subarray(tables));
    buffer = copy.buffer;
    base = 0;
  }
  const rows = new Int8Array(buffer, base + vocabularySize * 12, vocabularySize * dimensions);
  const at: { rows: Int8Array; base: number } = { rows, base: 0 };
  return {
    dimensions,
    vocabularySize,
    tokens,
    scales: new Float32Array(buffer, base, vocabularySize),
    queryWeights: new Float32Array(buffer, base + vocabularySize * 4, vocabularySize),
    documentWeights: new Float32Array(buffer, base + vocabularySize * 8, vocabularySize),
    digest: createHash('sha256').update(bytes).digest('hex').slice(0, 12),
    row: (id) => {
      at.base = id * dimensions;
      return at;
    },
  };
}

/**
 * The vocabulary and per-token weights read at load (~1 MB), each row when first looked up,
 * and every row at once after ROW_READS_BEFORE_LOAD lookups. No file stays open (a worker
 * that embeds a few texts and ends leaks nothing); each read checks the file is still the
 * one loaded (or, replaced, has the same digest: the same model reinstalled), so another
 * model put there meanwhile (an upgrade under a running server) is refused instead of mixed
 * with the old vocabulary.
 */
function lazyTable(file: string, digest: string): Table {
  let identity = '';
  const reading = <T>(read: (fd: number, size: number) => T): T => {
    let fd: number | undefined;
    try {
      fd = openSync(file, 'r');
      const stat = fstatSync(fd);
      const current = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      if (identity && current !== identity && digestOf(fd, stat.size) !== digest) {
        throw new LociError('EMBEDDER_UNAVAILABLE', `The static embedding model at ${file} changed while loci was running; restart the process to load the new one.`);
      }
      identity = current;
      return read(fd, stat.size);
    } catch (error) {
      throw error instanceof LociError ? error : unreadable(file, error);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  };
  const { header, tokens, weights, rowsAt } = reading((fd, size) => {
    const prefix = Buffer.alloc(16);
    readFully(fd, prefix, 0);
    const headerEnd = 16 + prefix.readUInt32LE(8);
    const vocabularyEnd = headerEnd + prefix.readUInt32LE(12);
    // Header and vocabulary first (their lengths are in the prefix), then the weight tables.
    const front = Buffer.allocUnsafe(Math.min(size, vocabularyEnd));
    readFully(fd, front, 0);
    const { header, vocabularyStart, vocabularyLength, tables } = layoutOf(file, front, size);
    const tokens = vocabulary(file, front, vocabularyStart, vocabularyLength, header.vocabularySize);
    const weights = new Float32Array(header.vocabularySize * 3);
    readFully(fd, new Uint8Array(weights.buffer), tables);
    return { header, tokens, weights, rowsAt: tables + header.vocabularySize * 12 };
  });
  const { dimensions, vocabularySize } = header;
  let all: Int8Array | undefined;
  let reads = 0;
  const cached = new Map<number, Int8Array>();
  const at: { rows: Int8Array; base: number } = { rows: new Int8Array(0), base: 0 };
  const row = (id: number): { rows: Int8Array; base: number } => {
    if (all) {
      at.rows = all;
      at.base = id * dimensions;
      return at;
    }
    let one = cached.get(id);
    if (!one) {
      if (++reads > ROW_READS_BEFORE_LOAD) {
        const every = new Int8Array(vocabularySize * dimensions);
        reading((fd) => readFully(fd, new Uint8Array(every.buffer), rowsAt));
        all = every;
        cached.clear();
        return row(id);
      }
      const read = new Int8Array(dimensions);
      reading((fd) => readFully(fd, new Uint8Array(read.buffer), rowsAt + id * dimensions));
      one = read;
      cached.set(id, one);
    }
    at.rows = one;
    at.base = 0;
    return at;
  };
  return {
    dimensions,
    vocabularySize,
    tokens,
    scales: weights.subarray(0, vocabularySize),
    queryWeights: weights.subarray(vocabularySize, 2 * vocabularySize),
    documentWeights: weights.subarray(2 * vocabularySize),
    digest,
    row,
  };
}

/** The first 12 hex digits of an open file's sha256 (a replaced model file may be the same model, reinstalled). */
function digestOf(fd: number, size: number): string {
  const bytes = Buffer.allocUnsafe(size);
  readFully(fd, bytes, 0);
  return createHash('sha256').update(bytes).digest('hex').slice(0, 12);
}

/** Fills `bytes` from `position` (throws on a short file). */
function readFully(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) {
    const read = readSync(fd, bytes, done, bytes.length - done, position + done);
    if (read === 0) throw new Error('unexpected end of file');
    done += read;
  }
}
