import { z } from 'zod';
import { LociError } from '../errors/index.js';
import { normalizeNamespace } from './namespace.js';
import { checkId } from './records.js';
import { checkTime } from './time-range.js';
import { memoryKinds, type MemoryRecord } from './spec.js';
import { describeIssues } from '../errors/zod-issues.js';

export type ImportFormat = 'loci' | 'go-vector-store' | 'unity-memory-log';

export interface ImportOptions {
  /**
   * Namespace for the records of a Go vector store or a Unity log. Required for files that
   * name none (a loci export in those shapes carries each record's namespace).
   */
  namespace?: string;
  /**
   * The embedder that made a foreign file's vectors (e.g. `openai-compatible:ai/mxbai-embed-large@1024`).
   * Vectors are kept only when this equals the current embedder and their size fits;
   * otherwise texts are re-embedded (the summary's warnings say so). A loci export names it.
   */
  vectorsFrom?: string;
  /** Replace records that already exist with the same id (default true). */
  overwrite?: boolean;
  signal?: AbortSignal;
}

/** A file read and checked whole, before anything is written. */
export interface Parsed {
  format: ImportFormat;
  records: MemoryRecord[];
  /** Vectors by `<namespace>/#<id>`. */
  vectors: Map<string, number[]>;
  /** The embedder the vectors came from, when the file or the caller says. */
  vectorsFrom: string | undefined;
}

const versionSchema = z.object({ text: z.string(), fields: z.record(z.string(), z.unknown()).optional(), updatedAt: z.number(), replacedAt: z.number() });

/** A record's own fields, as a loci export carries them. */
export const lociRecordSchema = z.object({
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
  versions: z.array(versionSchema).max(100).optional(),
  conflictsWith: z.array(z.string()).max(100).optional(),
  embedding: z.array(z.number()).optional(),
});

/**
 * What a Unity log or a Go vector store cannot hold, kept beside each entry under `loci`
 * (JsonUtility, Newtonsoft and Go's encoding/json ignore keys they do not know), so a
 * round trip through those shapes gives back the same records.
 */
export const lociSidecarSchema = lociRecordSchema.omit({ id: true, text: true, updatedAt: true, embedding: true }).extend({ embedder: z.string().optional() });
export type LociSidecar = z.infer<typeof lociSidecarSchema>;

/** The sidecar of a record: everything but its id, text and vector (the foreign shape holds those) and read-time warnings. */
export function sidecarOf(record: MemoryRecord & { embedding?: number[] }, embedder: string): LociSidecar {
  const { id: _id, text: _text, updatedAt: _updatedAt, warnings: _warnings, embedding: _embedding, ...rest } = record;
  return { ...(rest as Omit<LociSidecar, 'embedder'>), embedder };
}

/** A sidecar found on an entry, checked; undefined when the entry has none. */
export function readSidecar(value: unknown, where: string): LociSidecar | undefined {
  if (value === undefined || value === null) return undefined;
  const result = lociSidecarSchema.safeParse(value);
  if (!result.success) throw invalid(`${where}.loci: ${describeIssues(result.error.issues, '(root)', 5)}.`);
  return result.data;
}

/** Builds a checked record from an export's fields (a loci export's record, or a sidecar with an id and text). */
export function recordFromParts(index: number, raw: z.infer<typeof lociRecordSchema>): MemoryRecord {
  const namespace = at(index, () => normalizeNamespace(raw.namespace));
  const id = at(index, () => checkId(raw.id));
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
}

export function at<T>(index: number, action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw invalid(`record ${index}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function invalid(message: string): LociError {
  return new LociError('IMPORT_INVALID', `Cannot import: ${message}`);
}
