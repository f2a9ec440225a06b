import { z } from 'zod';
import { LociError } from '../errors/index.js';
import { sha256Hex } from '../sources/content-hash.js';
import type { Memory } from './memory.js';
import { normalizeNamespace } from './namespace.js';
import type { RecordStore } from './record-store.js';
import { checkId, checkSize, searchableText } from './records.js';
import { parseTime } from './parse-time.js';
import { checkTime } from './time-range.js';
import { interactionOutcomes, memoryKinds, type InteractionOutcome, type MemoryRecord } from './spec.js';

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

export interface ImportOptions {
  /** Namespace for formats that have none (Go vector store, Unity log). Required for them. */
  namespace?: string;
  /**
   * The embedder that made a foreign file's vectors (e.g. `openai-compatible:ai/mxbai-embed-large@1024`).
   * Vectors are kept only when this equals the current embedder; otherwise texts are re-embedded.
   */
  vectorsFrom?: string;
  /** Replace records that already exist with the same id (default true). */
  overwrite?: boolean;
  signal?: AbortSignal;
}

export interface ImportSummary {
  format: 'loci' | 'go-vector-store' | 'unity-memory-log';
  imported: number;
  /** Records whose vectors came from the file. */
  keptVectors: number;
  /** Records embedded anew because the file's vectors came from another embedder (or had none). */
  reembedded: number;
  skippedExisting: number;
}

export async function exportRecords(records: RecordStore, list: MemoryRecord[]): Promise<MemoryExport> {
  const out: MemoryExport['records'] = [];
  for (const record of list) {
    const vector = await records.vectorOf(record);
    out.push(vector ? { ...record, embedding: Array.from(vector, (value) => Math.round(value * 1e6) / 1e6) } : record);
  }
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, embedder: records.embedderId, exportedAt: new Date().toISOString(), records: out };
}

const lociRecord = z.object({
  id: z.string(),
  namespace: z.string(),
  kind: z.enum(memoryKinds as [string, ...string[]]),
  text: z.string(),
  time: z.number(),
  updatedAt: z.number().optional(),
  expiresAt: z.number().optional(),
  mergedCount: z.number().int().min(0).optional(),
  context: z.string().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  versions: z.array(z.object({ text: z.string(), fields: z.record(z.string(), z.unknown()).optional(), updatedAt: z.number(), replacedAt: z.number() })).max(100).optional(),
  conflictsWith: z.array(z.string()).max(100).optional(),
  embedding: z.array(z.number()).optional(),
});
const lociExport = z.object({ format: z.literal(EXPORT_FORMAT), version: z.number().int(), embedder: z.string(), records: z.array(lociRecord) });

interface Parsed {
  format: ImportSummary['format'];
  records: MemoryRecord[];
  vectors: Map<string, number[]>;
  vectorsFrom: string | undefined;
}

/** Validates the whole file, then writes every record in batches; a bad file writes nothing. */
export async function importRecords(memory: Memory, data: unknown, options: ImportOptions): Promise<ImportSummary> {
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
      throw new LociError('MEMORY_ID_CONFLICT', `Cannot import: memory id ${record.id} (namespace ${record.namespace}) already exists in namespace ${elsewhere.join(', ')}; ids are unique per store. Nothing was written.`, {
        details: { id: record.id, namespaces: elsewhere },
      });
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
  const embedderId = memory.records.embedderId;
  let keptVectors = 0;
  if (parsed.vectorsFrom === embedderId && embedderId !== 'none') {
    const pairs = records.flatMap((record) => {
      const vector = parsed.vectors.get(`${record.namespace}/#${record.id}`);
      return vector ? [{ record, vector: Float32Array.from(vector) }] : [];
    });
    keptVectors = await memory.records.seedVectors(pairs);
  }
  await memory.records.write(records, options.signal ? { signal: options.signal } : {});
  return {
    format: parsed.format,
    imported: records.length,
    keptVectors,
    reembedded: embedderId === 'none' ? 0 : records.length - keptVectors,
    skippedExisting,
  };
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
    const problems = result.error.issues.slice(0, 10).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw invalid(`${result.error.issues.length} problem(s): ${problems.join('; ')}.`);
  }
  if (result.data.version > EXPORT_VERSION) throw invalid(`export version ${result.data.version} is newer than this loci reads (${EXPORT_VERSION}); upgrade loci.`);
  const vectors = new Map<string, number[]>();
  const records = result.data.records.map((raw, index): MemoryRecord => {
    const namespace = at(index, () => normalizeNamespace(raw.namespace));
    const id = at(index, () => checkId(raw.id));
    if (raw.embedding) vectors.set(`${namespace}/#${id}`, raw.embedding);
    const time = at(index, () => checkTime(raw.time, 'time'));
    const updatedAt = at(index, () => checkTime(raw.updatedAt ?? raw.time, 'updatedAt'));
    const record: MemoryRecord = { id, namespace, kind: raw.kind as MemoryRecord['kind'], text: raw.text, time, updatedAt, mergedCount: raw.mergedCount ?? 0 };
    if (raw.expiresAt !== undefined) record.expiresAt = at(index, () => checkTime(raw.expiresAt, 'expiresAt'));
    if (raw.versions) {
      record.versions = raw.versions.map((version) => ({
        ...(version as NonNullable<MemoryRecord['versions']>[number]),
        updatedAt: at(index, () => checkTime(version.updatedAt, 'versions.updatedAt')),
        replacedAt: at(index, () => checkTime(version.replacedAt, 'versions.replacedAt')),
      }));
    }
    if (raw.conflictsWith) record.conflictsWith = raw.conflictsWith.map((other) => at(index, () => checkId(other)));
    if (raw.context !== undefined) record.context = raw.context;
    if (raw.fields) record.fields = raw.fields as unknown as MemoryRecord['fields'];
    if (raw.metadata) record.metadata = raw.metadata;
    return record;
  });
  return { format: 'loci', records, vectors, vectorsFrom: result.data.embedder };
}

/** `{Records: {id: {id, prompt, embedding}}}` (keys in any case, as Go's encoder writes them). */
function goRecords(data: unknown): Record<string, unknown> | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const value = field(data as Record<string, unknown>, 'records');
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function parseGo(entries: Record<string, unknown>, options: ImportOptions): Parsed {
  const namespace = requireNamespace(options, 'Go vector store');
  const vectors = new Map<string, number[]>();
  const time = Date.now();
  const records = Object.entries(entries).map(([key, value], index): MemoryRecord => {
    if (!value || typeof value !== 'object') throw invalid(`Records["${key}"] is not an object.`);
    const entry = value as Record<string, unknown>;
    const prompt = field(entry, 'prompt');
    if (typeof prompt !== 'string' || prompt.trim() === '') throw invalid(`Records["${key}"].prompt must be a non-empty string.`);
    const rawId = field(entry, 'id');
    const id = at(index, () => checkId(sanitizeId(typeof rawId === 'string' && rawId !== '' ? rawId : key)));
    const embedding = field(entry, 'embedding');
    if (embedding !== undefined && embedding !== null) vectors.set(`${namespace}/#${id}`, numbers(embedding, `Records["${key}"].embedding`));
    return { id, namespace, kind: 'knowledge', text: prompt, time, updatedAt: time, mergedCount: 0, fields: { source: 'go-vector-store', headingPath: [] } };
  });
  return { format: 'go-vector-store', records, vectors, vectorsFrom: options.vectorsFrom };
}

/** A Unity `memory_log.json`: an array of InteractionRecord, or JsonUtility's `{records|Records: [...]}` wrapper. */
function unityRecords(data: unknown): unknown[] | undefined {
  const list = Array.isArray(data) ? data : data && typeof data === 'object' ? Object.values(data as object).find(Array.isArray) : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.length === 0 || list.some((item) => item && typeof item === 'object' && field(item as Record<string, unknown>, 'userprompt') !== undefined) ? list : undefined;
}

function parseUnity(list: unknown[], options: ImportOptions): Parsed {
  const namespace = requireNamespace(options, 'Unity memory log');
  const vectors = new Map<string, number[]>();
  const base = Date.now() - list.length;
  const records = list.map((value, index): MemoryRecord => {
    if (!value || typeof value !== 'object') throw invalid(`record ${index} is not an object.`);
    const entry = value as Record<string, unknown>;
    const prompt = field(entry, 'userprompt');
    if (typeof prompt !== 'string' || prompt.trim() === '') throw invalid(`record ${index}: UserPrompt must be a non-empty string.`);
    const response = field(entry, 'llmresponse');
    const feedback = field(entry, 'feedback');
    const multiStep = field(entry, 'ismultistep');
    const rawId = field(entry, 'id');
    // The log has no ids: one derived from the entry keeps re-imports idempotent.
    const id = typeof rawId === 'string' && rawId.trim() !== '' ? at(index, () => checkId(sanitizeId(rawId))) : `u${sha256Hex(`${index}\n${JSON.stringify(entry)}`).slice(0, 16)}`;
    const embedding = field(entry, 'promptembedding');
    if (Array.isArray(embedding) && embedding.length > 0) vectors.set(`${namespace}/#${id}`, numbers(embedding, `record ${index}: PromptEmbedding`));
    const time = at(index, () => checkTime(parseTime(field(entry, 'timestamp') ?? field(entry, 'time')) ?? base + index, 'Timestamp'));
    const fields = {
      prompt,
      response: response === undefined || response === null ? '' : typeof response === 'string' ? response : JSON.stringify(response),
      outcome: outcomeOf(field(entry, 'outcome'), index),
      ...(typeof feedback === 'string' && feedback !== '' ? { feedback } : {}),
      ...(typeof multiStep === 'boolean' ? { multiStep } : {}),
    };
    return { id, namespace, kind: 'interaction', text: searchableText('interaction', prompt, fields), time, updatedAt: time, mergedCount: 0, fields };
  });
  return { format: 'unity-memory-log', records, vectors, vectorsFrom: options.vectorsFrom };
}

/** C# enums arrive as names ("Success") or, from JsonUtility, as their ordinal. */
function outcomeOf(value: unknown, index: number): InteractionOutcome {
  if (value === undefined || value === null) return 'success';
  if (typeof value === 'number') {
    const byOrdinal: InteractionOutcome[] = ['success', 'error', 'cancelled'];
    const outcome = byOrdinal[value];
    if (outcome) return outcome;
  }
  const text = String(value).toLowerCase();
  if (text.startsWith('success') || text === 'ok') return 'success';
  if (text.startsWith('cancel') || text === 'aborted') return 'cancelled';
  if (['error', 'failure', 'failed', 'fail', 'exception'].includes(text)) return 'error';
  if ((interactionOutcomes as readonly string[]).includes(text)) return text as InteractionOutcome;
  throw invalid(`record ${index}: Outcome ${JSON.stringify(value)} is not Success, Error or Cancelled (or 0, 1, 2).`);
}

function field(entry: Record<string, unknown>, lowerName: string): unknown {
  for (const [key, value] of Object.entries(entry)) if (key.toLowerCase().replace(/_/g, '') === lowerName) return value;
  return undefined;
}

function numbers(value: unknown, where: string): number[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'number' && Number.isFinite(item))) throw invalid(`${where} must be an array of finite numbers.`);
  return value as number[];
}

function sanitizeId(id: string): string {
  return id.replace(/[/\s]+/g, '_').slice(0, 200);
}

function requireNamespace(options: ImportOptions, what: string): string {
  if (!options.namespace) throw invalid(`a ${what} names no namespace; pass one (CLI: --namespace agent/boss).`);
  return normalizeNamespace(options.namespace);
}

function at<T>(index: number, action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw invalid(`record ${index}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function invalid(message: string): LociError {
  return new LociError('IMPORT_INVALID', `Cannot import: ${message}`);
}
