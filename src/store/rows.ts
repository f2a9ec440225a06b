import type { ChunkKind } from '../chunk/spec.js';
import type { CatalogEntry, ChunkRecord } from './spec.js';

/** Rows as SQLite returns them, and their mapping onto the store's types. */
export interface CatalogRow {
  path: string;
  size: number;
  mtime_ms: number;
  content_hash: string;
  language: string;
  chunker: string;
  embedder: string;
  chunk_count: number;
  indexed_at: number;
  attributes: string | null;
}

export interface ChunkRow {
  id: number;
  chunk_id: string;
  content_hash: string;
  path: string;
  start_line: number;
  end_line: number;
  language: string;
  kind: string;
  symbol: string | null;
  symbols: string;
  heading_path: string;
  text: string;
}

/** Each symbol under its whole qualified name and its last segment, lower-cased. */
export function symbolKeys(symbols: string[]): Set<string> {
  const keys = new Set<string>();
  for (const symbol of symbols) {
    const lower = symbol.toLowerCase();
    keys.add(lower);
    keys.add(lower.slice(lower.lastIndexOf('.') + 1));
  }
  return keys;
}

export function toCatalogEntry(row: CatalogRow): CatalogEntry {
  return {
    path: row.path,
    size: row.size,
    mtimeMs: row.mtime_ms,
    contentHash: row.content_hash,
    language: row.language,
    chunker: row.chunker,
    embedder: row.embedder,
    chunkCount: row.chunk_count,
    indexedAt: row.indexed_at,
    ...(row.attributes !== null ? { attributes: row.attributes } : {}),
  };
}

export function toChunkRecord(row: ChunkRow): ChunkRecord {
  return tupleToChunkRecord([row.id, row.chunk_id, row.content_hash, row.path, row.start_line, row.end_line, row.language, row.kind, row.symbol, row.symbols, row.heading_path, row.text]);
}

/** A chunk row as an array, in CHUNK_COLUMNS' order (no object per row from the driver). */
export type ChunkTuple = [number, string, string, string, number, number, string, string, string | null, string, string, string];

/** The columns of a ChunkTuple, for a SELECT. */
export const CHUNK_COLUMNS = 'id, chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text';

export function tupleToChunkRecord([rowId, chunkId, contentHash, path, startLine, endLine, language, kind, symbol, symbols, headingPath, text]: ChunkTuple): ChunkRecord {
  const record: ChunkRecord = {
    rowId,
    chunkId,
    contentHash,
    path,
    startLine,
    endLine,
    language,
    kind: kind as ChunkKind,
    symbols: stringList(symbols),
    headingPath: stringList(headingPath),
    text,
  };
  if (symbol !== null) record.symbol = symbol;
  return record;
}

/** A stored JSON list of strings; the empty one (most chunks' symbols and heading path) without parsing. */
function stringList(json: string): string[] {
  return json === '[]' ? [] : (JSON.parse(json) as string[]);
}

/** (path, line, symbol) rows in path and line order → each file's distinct symbols, first definition first. */
export function groupOutline(rows: Iterable<[string, number, string]>): Array<{ path: string; symbols: Array<{ name: string; line: number }> }> {
  const byPath = new Map<string, Array<{ name: string; line: number }>>();
  for (const [path, line, name] of rows) {
    let symbols = byPath.get(path);
    if (!symbols) byPath.set(path, (symbols = []));
    if (!symbols.some((symbol) => symbol.name === name)) symbols.push({ name, line });
  }
  return [...byPath].map(([path, symbols]) => ({ path, symbols }));
}

/** Chunk rows as records in the order their ids were asked for; ids no longer stored are left out. */
export function inRequestedOrder(rowIds: readonly number[], rows: readonly ChunkRow[]): ChunkRecord[] {
  return recordsInOrder(rowIds, rows.map(toChunkRecord));
}

/** Records in the order their ids were asked for; ids not among them are left out. */
export function recordsInOrder(rowIds: readonly number[], records: readonly ChunkRecord[]): ChunkRecord[] {
  const byId = new Map(records.map((record) => [record.rowId, record]));
  const out: ChunkRecord[] = [];
  for (const id of rowIds) {
    const record = byId.get(id);
    if (record) out.push(record);
  }
  return out;
}

/**
 * The row ids a store's deletion log holds for the deletions counted after `after` up to
 * `upTo` (Store.deletedRowIds), read by `read` once the span is sound; undefined when the log
 * does not hold every one of them (it no longer reaches back that far, or they came before it).
 */
export async function deletionSpan(after: number, upTo: number, read: () => Promise<readonly number[]> | readonly number[]): Promise<Int32Array | undefined> {
  if (!(Number.isSafeInteger(after) && Number.isSafeInteger(upTo) && after >= 0 && upTo >= after)) return undefined;
  const ids = await read();
  return ids.length === upTo - after ? Int32Array.from(ids) : undefined;
}

/**
 * `count` [id, term] rows already in the terms' UTF-8 byte order, packed as a segment's lexicon
 * is (bytes, where each term ends, ids) without a list of pairs: at 1M terms the pairs and their
 * sort held ~300 MB more than these arrays.
 */
export function packedTerms(count: number, rows: Iterable<[number, string]>): { bytes: Uint8Array; offsets: Uint32Array; ids: Uint32Array } {
  const ids = new Uint32Array(count);
  const offsets = new Uint32Array(count + 1);
  let bytes = Buffer.allocUnsafe(Math.max(1024, count * 12));
  let index = 0;
  for (const [id, term] of rows) {
    if (index >= count) throw new Error(`the lexicon grew while it was read (more than ${count} terms)`);
    const at = offsets[index] as number;
    // Room for the longest UTF-8 form of the term (3 bytes per UTF-16 unit).
    if (at + 3 * term.length > bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * bytes.length, at + 3 * term.length));
      bytes.copy(grown, 0, 0, at);
      bytes = grown;
    }
    ids[index] = id;
    offsets[index + 1] = at + bytes.write(term, at, 'utf8');
    index++;
  }
  if (index !== count) throw new Error(`the lexicon shrank while it was read (${index} of ${count} terms)`);
  return { bytes: bytes.subarray(0, offsets[count] as number), offsets, ids };
}
