import { z } from 'zod';
import { LociError } from '../errors/index.js';
import { goRecords, parseGo, parseUnity, unityRecords } from './foreign-import.js';
import type { MemoryCore } from './memory-core.js';
import type { RecordStore } from './record-store.js';
import { checkSize } from './records.js';
import type { MemoryRecord } from './spec.js';
import { invalid, lociRecordSchema, recordFromParts, type ImportFormat, type ImportOptions, type Parsed } from './transfer-parse.js';
import { describeIssues, tightestIssues } from '../errors/zod-issues.js';

export type { ImportOptions } from './transfer-parse.js';

export const EXPORT_FORMAT = 'loci-memory';
export const EXPORT_VERSION = 1;

export interface MemoryExport {
  format: typeof EXPORT_FORMAT;
  version: number;
  /** Embedder the vectors come from (`none` when the export carries none). */
  embedder: string;
  exportedAt: string;
  records: Array<MemoryRecord & { embedding?: number[] }>;
}

export interface ImportSummary {
  format: ImportFormat;
  imported: number;
  /** Records whose vectors came from the file. */
  keptVectors: number;
  /** Records embedded anew because the file's vectors came from another embedder, had another size, or were missing. */
  reembedded: number;
  skippedExisting: number;
  /** Why vectors the file carried were not kept (another or an unnamed embedder, the wrong size). */
  warnings: string[];
}

export async function exportRecords(records: RecordStore, list: MemoryRecord[]): Promise<MemoryExport> {
  const out: MemoryExport['records'] = [];
  for (const record of list) {
    const vector = await records.vectorOf(record);
    out.push(vector ? { ...record, embedding: Array.from(vector, (value) => Math.round(value * 1e6) / 1e6) } : record);
  }
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, embedder: records.embedderId, exportedAt: new Date().toISOString(), records: out };
}

const lociExport = z.object({ format: z.literal(EXPORT_FORMAT), version: z.number().int(), embedder: z.string(), records: z.array(lociRecordSchema) });

/** Validates the whole file, then writes every record in batches; a bad file writes nothing. */
export async function importRecords(memory: MemoryCore, data: unknown, options: ImportOptions): Promise<ImportSummary> {
  const parsed = parse(data, options);
  const now = Date.now();
  for (const record of parsed.records) {
    record.updatedAt = now;
    checkSize(record);
  }
  const seen = new Map<string, string>();
  for (const [index, record] of parsed.records.entries()) {
    const earlier = seen.get(record.id);
    if (earlier !== undefined) throw invalid(`record ${index}: id ${record.id} appears twice (namespaces ${earlier} and ${record.namespace}); ids are unique per store.`);
    seen.set(record.id, record.namespace);
  }
  // Re-importing replaces a record in its own namespace; an id held by another namespace is a conflict.
  const holders = await memory.records.namespacesOfMany(parsed.records.map((record) => record.id));
  for (const record of parsed.records) {
    const elsewhere = (holders.get(record.id) ?? []).filter((namespace) => namespace !== record.namespace);
    if (elsewhere.length > 0) {
      throw new LociError(
        'MEMORY_ID_CONFLICT',
        `Cannot import: memory id ${record.id} (namespace ${record.namespace}) already exists in namespace ${elsewhere.join(', ')}; ids are unique per store. Nothing was written.`,
        {
          details: { id: record.id, namespaces: elsewhere },
        },
      );
    }
  }
  let records = parsed.records;
  let skippedExisting = 0;
  if (options.overwrite === false) {
    const fresh: MemoryRecord[] = [];
    for (const record of records) {
      if (await memory.records.get(record.namespace, record.id)) skippedExisting++;
      else fresh.push(record);
    }
    records = fresh;
  }
  const { keptVectors, warnings } = await keepVectors(memory.records, records, parsed);
  await memory.records.write(records, options.signal ? { signal: options.signal } : {});
  return {
    format: parsed.format,
    imported: records.length,
    keptVectors,
    reembedded: memory.records.embedderId === 'none' ? 0 : records.length - keptVectors,
    skippedExisting,
    warnings,
  };
}

/**
 * Seeds the embedding cache with the file's vectors when they come from the current
 * embedder and have its size; every other vector is dropped (its text is embedded again)
 * and a warning says why, so a re-embedding is never silent.
 */
async function keepVectors(store: RecordStore, records: readonly MemoryRecord[], parsed: Parsed): Promise<{ keptVectors: number; warnings: string[] }> {
  const embedderId = store.embedderId;
  const pairs = records.flatMap((record) => {
    const vector = parsed.vectors.get(`${record.namespace}/#${record.id}`);
    return vector ? [{ record, vector: Float32Array.from(vector) }] : [];
  });
  if (pairs.length === 0 || embedderId === 'none') {
    return { keptVectors: 0, warnings: pairs.length > 0 ? [`${pairs.length} records carried vectors; this memory keeps none (embedder none), so they were dropped.`] : [] };
  }
  if (parsed.vectorsFrom !== embedderId) {
    const from = parsed.vectorsFrom === undefined ? 'an embedder the file does not name' : parsed.vectorsFrom;
    const hint = parsed.vectorsFrom === undefined ? ` Pass --vectors-from ${embedderId} (vectorsFrom) if ${embedderId} made them.` : '';
    return { keptVectors: 0, warnings: [`${pairs.length} records carried vectors from ${from}; they were re-embedded with ${embedderId}, so recall never mixes vector spaces.${hint}`] };
  }
  const seeded = await store.seedVectors(pairs);
  const warnings: string[] = [];
  if (seeded.wrongSize.size > 0) {
    const sizes = [...seeded.wrongSize].map(([size, count]) => `${count} with ${size}`).join(', ');
    warnings.push(`Vectors of the wrong size were re-embedded: ${sizes} dimensions, but ${embedderId} makes ${store.model?.dimensions ?? 0}-dimensional vectors.`);
  }
  if (seeded.multiChunk > 0) warnings.push(`${seeded.multiChunk} records are longer than one chunk; their single vector was not kept and they were re-embedded.`);
  return { keptVectors: seeded.kept, warnings };
}

function parse(data: unknown, options: ImportOptions): Parsed {
  if (data && typeof data === 'object' && !Array.isArray(data) && (data as { format?: unknown }).format === EXPORT_FORMAT) return parseLoci(data);
  const records = goRecords(data);
  if (records) return parseGo(records, options);
  const log = unityRecords(data);
  if (log) return parseUnity(log, options);
  throw invalid('the file is not a loci export ({"format":"loci-memory",…}), a Go vector store ({"Records":{…}}) or a Unity memory log ([{"UserPrompt",…}]).');
}

function parseLoci(data: unknown): Parsed {
  const result = lociExport.safeParse(data);
  if (!result.success) {
    throw invalid(`${tightestIssues(result.error.issues).length} problem(s): ${describeIssues(result.error.issues, '(root)', 10)}.`);
  }
  if (result.data.version > EXPORT_VERSION) throw invalid(`export version ${result.data.version} is newer than this loci reads (${EXPORT_VERSION}); upgrade loci.`);
  const vectors = new Map<string, number[]>();
  const records = result.data.records.map((raw, index): MemoryRecord => {
    const record = recordFromParts(index, raw);
    if (raw.embedding && raw.embedding.length > 0) vectors.set(`${record.namespace}/#${record.id}`, raw.embedding);
    return record;
  });
  return { format: 'loci', records, vectors, vectorsFrom: result.data.embedder };
}
