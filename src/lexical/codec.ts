/**
 * Per-chunk term statistics, the durable source of the in-memory lexical index. Terms are
 * ids into the store's lexicon; each entry carries its frequency in each field.
 *
 * Layout (unsigned LEB128 varints): 4 field lengths, entry count, then per entry the term
 * id delta (entries sorted by id), a 4-bit field mask, and one frequency per set bit.
 */
export const LEXICAL_FIELDS = ['path', 'symbols', 'heading', 'body'] as const;
export type LexicalField = (typeof LEXICAL_FIELDS)[number];
/**
 * The order fields are counted in, by LEXICAL_FIELDS index: path, heading, body, then symbols.
 * A chunk's terms come first-seen in that order, so those of the embedded text (path, heading
 * and body) are in the order it holds them, which is the order a static model sums their
 * rows in (embedTermStats gives the vector of the text to the bit).
 */
const COUNTING_ORDER = [0, 2, 3, 1] as const;

/** An append-only list of terms that chunk statistics point into (shared by many chunks). */
export interface TermList {
  readonly terms: readonly string[];
}

/**
 * Per-chunk term statistics as the indexer makes them: the chunk's distinct terms as indexes
 * into a list shared by the whole run, with their counts in flat typed arrays. Between
 * threads only the arrays travel (the list's new terms are sent once, not with every chunk),
 * and a store maps each list index to its term id once per run, not each chunk's strings.
 */
export interface ChunkTermStats {
  /** Token count of each field, in LEXICAL_FIELDS order. */
  fieldLengths: [number, number, number, number];
  /** The list `refs` point into. */
  table: TermList;
  /** The chunk's distinct terms, as indexes into `table.terms`, first-seen in counting order (path, heading, body, symbols). */
  refs: Uint32Array;
  /** Frequency of each term in each field: `counts[4 * i + field]` for `refs[i]`. */
  counts: Uint32Array;
}

export interface EncodedTerms {
  fieldLengths: [number, number, number, number];
  /** Sorted term ids. */
  termIds: Uint32Array;
  /** 4 frequencies per term id, in LEXICAL_FIELDS order. */
  frequencies: Uint16Array;
}

/**
 * The terms of an indexing run, each given the next index when first seen. Counting a chunk
 * marks its terms in scratch arrays indexed by term, so no per-chunk map is made.
 */
export class TermTable implements TermList {
  readonly terms: string[] = [];
  private readonly refs = new Map<string, number>();
  /** Per term: the chunk (by counting sequence) that last saw it, and its slot in that chunk. */
  private seenIn = new Int32Array(1024).fill(-1);
  private slotIn = new Int32Array(1024);
  private chunkSequence = 0;
  /** How many terms `drain` has handed out. */
  private drained = 0;

  refOf(term: string): number {
    let ref = this.refs.get(term);
    if (ref === undefined) {
      ref = this.terms.length;
      this.terms.push(term);
      this.refs.set(term, ref);
      if (ref >= this.seenIn.length) this.grow();
    }
    return ref;
  }

  /** Terms added since the last call, in index order: what a copy of this table on another thread lacks. */
  drain(): string[] {
    const fresh = this.terms.slice(this.drained);
    this.drained = this.terms.length;
    return fresh;
  }

  /** Counts term frequencies per field from the fields' token lists. */
  count(fields: Record<LexicalField, readonly string[]>): ChunkTermStats {
    const chunk = this.chunkSequence++;
    if (this.chunkSequence === 0x7fffffff) {
      this.chunkSequence = 0;
      this.seenIn.fill(-1);
    }
    const refs: number[] = [];
    const counts: number[] = [];
    const fieldLengths: [number, number, number, number] = [0, 0, 0, 0];
    for (const index of COUNTING_ORDER) {
      const tokens = fields[LEXICAL_FIELDS[index] as LexicalField];
      fieldLengths[index] = tokens.length;
      for (const token of tokens) {
        const ref = this.refOf(token);
        let slot: number;
        if (this.seenIn[ref] === chunk) slot = this.slotIn[ref] as number;
        else {
          slot = refs.length;
          refs.push(ref);
          counts.push(0, 0, 0, 0);
          this.seenIn[ref] = chunk;
          this.slotIn[ref] = slot;
        }
        counts[slot * 4 + index] = (counts[slot * 4 + index] as number) + 1;
      }
    }
    return { fieldLengths, table: this, refs: Uint32Array.from(refs), counts: Uint32Array.from(counts) };
  }

  private grow(): void {
    const seenIn = new Int32Array(this.seenIn.length * 2).fill(-1);
    seenIn.set(this.seenIn);
    const slotIn = new Int32Array(this.slotIn.length * 2);
    slotIn.set(this.slotIn);
    this.seenIn = seenIn;
    this.slotIn = slotIn;
  }
}

/** Counts term frequencies per field, in a list of its own (one-off callers; indexing runs share a TermTable). */
export function countTerms(fields: Record<LexicalField, readonly string[]>): ChunkTermStats {
  return new TermTable().count(fields);
}

/** The term at position `index` of the chunk's statistics. */
export function termAt(stats: ChunkTermStats, index: number): string {
  return stats.table.terms[stats.refs[index] as number] as string;
}

/** Encodes the statistics with store term ids: `idOf` is asked for each of the chunk's list indexes. */
export function encodeTerms(stats: ChunkTermStats, idOf: (ref: number) => number): Uint8Array {
  const { refs, counts } = stats;
  const order: number[] = [];
  const ids = new Float64Array(refs.length);
  for (let index = 0; index < refs.length; index++) {
    ids[index] = idOf(refs[index] as number);
    order.push(index);
  }
  order.sort((a, b) => (ids[a] as number) - (ids[b] as number));
  // Worst case per entry: 5-byte id delta, 1-byte mask, 4 × 5-byte counts.
  const writer = { bytes: new Uint8Array(30 + refs.length * 26), offset: 0 };
  for (const length of stats.fieldLengths) writeVarint(writer, length);
  writeVarint(writer, refs.length);
  let previous = 0;
  for (const index of order) {
    const id = ids[index] as number;
    writeVarint(writer, id - previous);
    previous = id;
    const at = index * 4;
    const mask = ((counts[at] as number) > 0 ? 1 : 0) | ((counts[at + 1] as number) > 0 ? 2 : 0) | ((counts[at + 2] as number) > 0 ? 4 : 0) | ((counts[at + 3] as number) > 0 ? 8 : 0);
    writeVarint(writer, mask);
    for (let field = 0; field < 4; field++) if ((counts[at + field] as number) > 0) writeVarint(writer, counts[at + field] as number);
  }
  return writer.bytes.slice(0, writer.offset);
}

export function decodeTerms(blob: Uint8Array): EncodedTerms {
  const reader = { offset: 0 };
  const fieldLengths = [readVarint(blob, reader), readVarint(blob, reader), readVarint(blob, reader), readVarint(blob, reader)] as [number, number, number, number];
  const count = readVarint(blob, reader);
  const termIds = new Uint32Array(count);
  const frequencies = new Uint16Array(count * 4);
  let id = 0;
  for (let entry = 0; entry < count; entry++) {
    id += readVarint(blob, reader);
    termIds[entry] = id;
    const mask = readVarint(blob, reader);
    for (let field = 0; field < 4; field++) {
      if (mask & (1 << field)) frequencies[entry * 4 + field] = Math.min(65535, readVarint(blob, reader));
    }
  }
  return { fieldLengths, termIds, frequencies };
}

function writeVarint(writer: { bytes: Uint8Array; offset: number }, value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    writer.bytes[writer.offset++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 128);
  }
  writer.bytes[writer.offset++] = rest;
}

function readVarint(bytes: Uint8Array, reader: { offset: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[reader.offset++];
    if (byte === undefined) throw new Error('Truncated term statistics.');
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 128;
  }
}
