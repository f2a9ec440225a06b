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
  const record: ChunkRecord = {
    rowId: row.id,
    chunkId: row.chunk_id,
    contentHash: row.content_hash,
    path: row.path,
    startLine: row.start_line,
    endLine: row.end_line,
    language: row.language,
    kind: row.kind as ChunkKind,
    symbols: JSON.parse(row.symbols) as string[],
    headingPath: JSON.parse(row.heading_path) as string[],
    text: row.text,
  };
  if (row.symbol !== null) record.symbol = row.symbol;
  return record;
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
  const byId = new Map(rows.map((row) => [row.id, toChunkRecord(row)]));
  return rowIds.flatMap((id) => {
    const record = byId.get(id);
    return record ? [record] : [];
  });
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
