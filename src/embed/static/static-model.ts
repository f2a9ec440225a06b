import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LociError } from '../../errors/index.js';
import { tokenize } from '../../lexical/tokenize.js';

/** A loaded static embedding table: int8 rows with per-row scales, keyed by token. */
export interface StaticModel {
  dimensions: number;
  /** First 12 hex digits of the file's sha256: a retrained model gets a new embedder id. */
  digest: string;
  embed(text: string, purpose: 'query' | 'document'): Float32Array;
  /** The same vector from the text's tokens (`tokenize(text)`), for callers that have them. */
  embedTokens(tokens: readonly string[], purpose: 'query' | 'document'): Float32Array;
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

/**
 * Reads the file written by scripts/embedder/train.py: magic, header and vocabulary
 * lengths, JSON header, newline-separated vocabulary, padding to 4 bytes, then float32
 * row scales, float32 query-side and document-side token importance, and int8 rows. A
 * text's vector is the importance-weighted sum of its tokens' rows, L2-normalised.
 */
export function loadStaticModel(file: string): StaticModel {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new LociError('EMBEDDER_UNAVAILABLE', `Cannot read the static embedding model at ${file}: ${(error as Error).message}.`, { cause: error });
  }
  if (bytes.length < 16 || bytes.toString('latin1', 0, 8) !== MAGIC) {
    throw new LociError('EMBEDDER_UNAVAILABLE', `${file} is not a loci static embedding model.`);
  }
  const headerLength = bytes.readUInt32LE(8);
  const vocabularyLength = bytes.readUInt32LE(12);
  const header = JSON.parse(bytes.toString('utf8', 16, 16 + headerLength)) as Header;
  if (header.format !== 'loci-static-embedder' || header.version !== 2 || header.quantization !== 'int8-rowwise') {
    throw new LociError('EMBEDDER_UNAVAILABLE', `${file} has an unsupported static model format (${header.format} v${header.version}).`);
  }
  const vocabularyStart = 16 + headerLength;
  const tokens = bytes.toString('utf8', vocabularyStart, vocabularyStart + vocabularyLength).split('\n');
  let offset = vocabularyStart + vocabularyLength;
  offset += (4 - (offset % 4)) % 4;
  const { dimensions, vocabularySize } = header;
  if (tokens.length !== vocabularySize || bytes.length !== offset + vocabularySize * 12 + vocabularySize * dimensions) {
    throw new LociError('EMBEDDER_UNAVAILABLE', `${file} is truncated or inconsistent.`);
  }
  // Views straight into the file's bytes when they are 4-byte aligned (a large read is its own
  // allocation, so they are): no 9 MB copy on every start.
  let buffer = bytes.buffer;
  let base = bytes.byteOffset + offset;
  if (base % 4 !== 0) {
    const copy = new Uint8Array(bytes.length - offset);
    copy.set(bytes.subarray(offset));
    buffer = copy.buffer;
    base = 0;
  }
  const scales = new Float32Array(buffer, base, vocabularySize);
  const queryWeights = new Float32Array(buffer, base + vocabularySize * 4, vocabularySize);
  const documentWeights = new Float32Array(buffer, base + vocabularySize * 8, vocabularySize);
  const rows = new Int8Array(buffer, base + vocabularySize * 12, vocabularySize * dimensions);
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
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12);

  // A token repeated in a text adds its row once, times its count: code repeats its words (the
  // peer bench's code chunks: 2.0 tokens per distinct one), and the rows are the whole cost.
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
    for (const id of seen) {
      const scale = (scales[id] as number) * (weights[id] as number) * (counts[id] as number);
      counts[id] = 0;
      const base = id * dimensions;
      for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] as number) + scale * (rows[base + index] as number);
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    if (norm > 0) {
      const inverse = 1 / Math.sqrt(norm);
      for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] as number) * inverse;
    }
    return vector;
  };
  return {
    dimensions,
    digest,
    embed: (text, purpose) => embedTokens(tokenize(text), purpose),
    embedTokens,
  };
}
