import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LociError, throwIfAborted } from '../errors/index.js';
import { LEXICAL_FIELDS, TermTable, type ChunkTermStats } from '../lexical/codec.js';
import { describeLocation, openStore, type StoreLocation } from './location.js';
import type { CatalogEntry, ChunkRecord, ChunkWrite, FileWrite, IndexRow, Store } from './spec.js';
import { STORE_INSTANCE_STATE } from './file-names.js'; // never copied: the copy is another store

export interface CopyProgress {
  type: 'copy-progress';
  part: 'index' | 'memory';
  files: number;
  totalFiles: number;
  chunks: number;
}

export interface CopySummary {
  files: number;
  /** Files the target already had in the same version (a resumed copy). */
  skipped: number;
  chunks: number;
  vectors: number;
  state: number;
  embedderId: string;
}

export interface CopyOptions {
  signal?: AbortSignal;
  onProgress?: (event: CopyProgress) => void;
  part?: 'index' | 'memory';
}

const PAGE = 1_000;
/** engine/run-lease.ts's lease: a run on the source holds it, never the copy. */
const RUN_LEASE_STATE = 'index-run';
const FILES_PER_WRITE = 64;

/**
 * Copies everything one store holds into another, empty one: catalog, chunks, term
 * statistics, vectors (nothing is re-embedded) and named state. Chunks are read in row-id
 * order, in which each file's chunks are contiguous (a file is always written in one
 * transaction), and written a group of files per transaction; an interrupted copy leaves
 * only whole files behind. Lexical fields are rebuilt from the stored term counts, which
 * is all BM25 reads (field lengths and per-field frequencies).
 */
export async function copyStore(from: Store, to: Store, options: CopyOptions = {}): Promise<CopySummary> {
  const meta = await from.getMeta();
  // A target that already holds files resumes an interrupted copy: files it has in the same
  // version are skipped. One built with another embedder is refused (vectors would mix).
  const existing = new Map((await to.listCatalog()).map((entry) => [entry.path, entry]));
  const targetEmbedder = (await to.getMeta()).embedderId;
  if (existing.size > 0 && targetEmbedder !== meta.embedderId) {
    throw new LociError('INVALID_ARGUMENT', `The target store ${to.location} already holds an index built with ${targetEmbedder}, not ${meta.embedderId}.`, {
      hint: 'Pick a new folder or namespace for --to, or remove the target first.',
    });
  }
  await to.setEmbedder(meta.embedderId, meta.dimensions);
  const same = (entry: CatalogEntry) => {
    const there = existing.get(entry.path);
    return there !== undefined && there.contentHash === entry.contentHash && there.chunkCount === entry.chunkCount && there.attributes === entry.attributes;
  };
  const lexicon = new Map(await from.readLexicon(0));
  const terms = new TermTable();
  const catalog = new Map((await from.listCatalog()).map((entry) => [entry.path, entry]));
  const summary: CopySummary = { files: 0, skipped: 0, chunks: 0, vectors: 0, state: 0, embedderId: meta.embedderId };
  const part = options.part ?? 'index';
  const totalFiles = catalog.size;
  const report = () => options.onProgress?.({ type: 'copy-progress', part, files: summary.files + summary.skipped, totalFiles, chunks: summary.chunks });
  let pending: FileWrite[] = [];
  let current: FileWrite | undefined;
  const flush = async (force: boolean) => {
    if (pending.length === 0 || (!force && pending.length < FILES_PER_WRITE)) return;
    await to.writeFiles(pending);
    summary.files += pending.length;
    pending = [];
    report();
  };
  const embedderId = meta.embedderId === 'none' ? undefined : meta.embedderId;
  let afterRowId = 0;
  for (;;) {
    throwIfAborted(options.signal);
    const rows = await from.scanIndexRows({ afterRowId, limit: PAGE, ...(embedderId ? { embedderId } : {}) });
    if (rows.length === 0) break;
    afterRowId = (rows.at(-1) as IndexRow).rowId;
    const records = new Map((await from.getChunks(rows.map((row) => row.rowId))).map((record) => [record.rowId, record]));
    for (const row of rows) {
      const record = records.get(row.rowId);
      if (!record) continue; // deleted since the scan
      if (current?.entry.path !== row.path) {
        const entry = catalog.get(row.path);
        if (!entry) continue; // a file being rewritten by another process; its next version is copied by a re-run
        catalog.delete(row.path);
        // The previous file is complete once the next one starts: only then may it be written.
        await flush(false);
        current = { entry, chunks: [] };
        if (same(entry)) summary.skipped++;
        else pending.push(current);
      }
      if (pending.at(-1) !== current) continue; // the target has this file already
      current.chunks.push(chunkWrite(record, row, lexicon, terms));
      summary.chunks++;
      if (row.vector) summary.vectors++;
    }
  }
  // Files without chunks (empty files, records with no text) were never in the scan.
  for (const entry of catalog.values()) {
    if (same(entry)) summary.skipped++;
    else pending.push({ entry: { ...entry, chunkCount: 0 }, chunks: [] });
  }
  await flush(true);
  for (const [key, value] of await from.listState()) {
    // The instance id names one store (its segment files are checked against it): a copy is another store.
    if (key === STORE_INSTANCE_STATE || key === RUN_LEASE_STATE) continue;
    await to.writeState(key, value);
    summary.state++;
  }
  report();
  return summary;
}

function chunkWrite(record: ChunkRecord, row: IndexRow, lexicon: Map<number, string>, terms: TermTable): ChunkWrite {
  const termStats: ChunkTermStats = {
    fieldLengths: [...row.terms.fieldLengths],
    table: terms,
    refs: new Uint32Array(row.terms.termIds.length),
    counts: Uint32Array.from(row.terms.frequencies),
  };
  const fields: Record<(typeof LEXICAL_FIELDS)[number], string[]> = { path: [], symbols: [], heading: [], body: [] };
  row.terms.termIds.forEach((id, index) => {
    const term = lexicon.get(id);
    if (term === undefined) throw new LociError('STORE_CORRUPT', `Term id ${id} of chunk ${record.rowId} is missing from the lexicon of the source store.`);
    const counts = row.terms.frequencies.subarray(index * 4, index * 4 + 4);
    termStats.refs[index] = terms.refOf(term);
    LEXICAL_FIELDS.forEach((field, fieldIndex) => {
      for (let repeat = 0; repeat < (counts[fieldIndex] ?? 0); repeat++) fields[field].push(term);
    });
  });
  const write: ChunkWrite = {
    chunkId: record.chunkId,
    contentHash: record.contentHash,
    startLine: record.startLine,
    endLine: record.endLine,
    language: record.language,
    kind: record.kind,
    symbols: record.symbols,
    headingPath: record.headingPath,
    text: record.text,
    lexical: { path: fields.path.join(' '), symbols: fields.symbols.join(' '), heading: fields.heading.join(' '), body: fields.body.join(' ') },
    termStats,
  };
  if (record.symbol !== undefined) write.symbol = record.symbol;
  if (row.vector) write.vector = row.vector;
  return write;
}

export interface MigrateSummary {
  from: string;
  to: string;
  index: CopySummary;
  memory?: CopySummary;
}

/** Where a location keeps its memory: memory.db beside index.db, or the `_memory` namespace. */
function memoryOf(location: StoreLocation): { location: StoreLocation; namespaceSuffix?: string; exists: () => boolean } {
  if (location.kind === 'sqlite') {
    const file = join(location.folder, 'memory.db');
    return { location: { kind: 'sqlite', folder: location.folder, file }, exists: () => existsSync(file) };
  }
  return { location, namespaceSuffix: '_memory', exists: () => true };
}

/** `loci migrate`: copies an index and its memory between stores (SQLite ↔ Postgres), without re-embedding. */
export async function migrateStores(fromLocation: StoreLocation, toLocation: StoreLocation, options: Omit<CopyOptions, 'part'> = {}): Promise<MigrateSummary> {
  const summary: MigrateSummary = { from: describeLocation(fromLocation), to: describeLocation(toLocation), index: await copyBetween(fromLocation, toLocation, { ...options, part: 'index' }) };
  const fromMemory = memoryOf(fromLocation);
  const toMemory = memoryOf(toLocation);
  if (!fromMemory.exists()) return summary;
  let source: Store;
  try {
    source = await openStore(fromMemory.location, { create: false, ...(fromMemory.namespaceSuffix ? { namespaceSuffix: fromMemory.namespaceSuffix } : {}) });
  } catch (error) {
    if (error instanceof LociError && error.code === 'INDEX_NOT_FOUND') return summary; // no memory kept there
    throw error;
  }
  try {
    const target = await openStore(toMemory.location, { create: true, ...(toMemory.namespaceSuffix ? { namespaceSuffix: toMemory.namespaceSuffix } : {}) });
    try {
      summary.memory = await copyStore(source, target, { ...options, part: 'memory' });
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
  return summary;
}

async function copyBetween(fromLocation: StoreLocation, toLocation: StoreLocation, options: CopyOptions): Promise<CopySummary> {
  const source = await openStore(fromLocation, { create: false });
  try {
    const target = await openStore(toLocation, { create: true });
    try {
      return await copyStore(source, target, options);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
