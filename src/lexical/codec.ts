/**
 * Per-chunk term statistics, the durable source of the in-memory lexical index. Terms are
 * ids into the store's lexicon; each entry carries its frequency in each field.
 *
 * Layout (unsigned LEB128 varints): 4 field lengths, entry count, then per entry the term
 * id delta (entries sorted by id), a 4-bit field mask, and one frequency per set bit.
 */
export const LEXICAL_FIELDS = ['path', 'symbols', 'heading', 'body'] as const;
export type LexicalField = (typeof LEXICAL_FIELDS)[number];

export interface ChunkTermStats {
  /** Token count of each field, in LEXICAL_FIELDS order. */
  fieldLengths: [number, number, number, number];
  /** term → frequency in each field (LEXICAL_FIELDS order). */
  terms: Map<string, [number, number, number, number]>;
}

export interface EncodedTerms {
  fieldLengths: [number, number, number, number];
  /** Sorted term ids. */
  termIds: Uint32Array;
  /** 4 frequencies per term id, in LEXICAL_FIELDS order. */
  frequencies: Uint16Array;
}

/** Counts term frequencies per field from the fields' token lists. */
export function countTerms(fields: Record<LexicalField, readonly string[]>): ChunkTermStats {
  const terms = new Map<string, [number, number, number, number]>();
  LEXICAL_FIELDS.forEach((field, index) => {
    for (const token of fields[field]) {
      let counts = terms.get(token);
      if (!counts) terms.set(token, (counts = [0, 0, 0, 0]));
      counts[index] = (counts[index] as number) + 1;
    }
  });
  return { fieldLengths: LEXICAL_FIELDS.map((field) => fields[field].length) as [number, number, number, number], terms };
}

export function encodeTerms(stats: ChunkTermStats, idOf: (term: string) => number): Uint8Array {
  const entries: Array<{ id: number; counts: [number, number, number, number] }> = [];
  for (const [term, counts] of stats.terms) entries.push({ id: idOf(term), counts });
  entries.sort((a, b) => a.id - b.id);
  // Worst case per entry: 5-byte id delta, 1-byte mask, 4 × 5-byte counts.
  const writer = { bytes: new Uint8Array(30 + entries.length * 26), offset: 0 };
  for (const length of stats.fieldLengths) writeVarint(writer, length);
  writeVarint(writer, entries.length);
  let previous = 0;
  for (const { id, counts } of entries) {
    writeVarint(writer, id - previous);
    previous = id;
    const mask = (counts[0] > 0 ? 1 : 0) | (counts[1] > 0 ? 2 : 0) | (counts[2] > 0 ? 4 : 0) | (counts[3] > 0 ? 8 : 0);
    writeVarint(writer, mask);
    for (const count of counts) if (count > 0) writeVarint(writer, count);
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
