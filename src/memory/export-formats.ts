import { LociError } from '../errors/index.js';
import { UNITY_OUTCOMES } from './foreign-import.js';
import type { InteractionFields } from './spec.js';
import { sidecarOf } from './transfer-parse.js';
import type { MemoryExport } from './transfer.js';

/**
 * `loci`: loci's own export. `unity`: the Unity assistant's `memory_log.json` (its
 * interactions). `go-agent`: the Go agent's `{name}_vector_store.json`.
 */
export const exportFormats = ['loci', 'unity', 'go-agent'] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** One entry of the Unity seed's memory log (InteractionRecord), plus what loci needs back. */
export interface UnityInteractionRecord {
  Id: string;
  UserPrompt: string;
  LLMResponse: string;
  /** CommandOutcome as JsonUtility writes it: 0 Success, 1 Error, 2 Cancelled. */
  Outcome: number;
  Feedback?: string;
  isMultiStep?: boolean;
  PromptEmbedding: number[];
  Timestamp: string;
  loci: ReturnType<typeof sidecarOf>;
}

/** One entry of the Go agent's store (rag.VectorRecord: `id`, `prompt`, `embedding`, `CosineSimilarity`). */
export interface GoVectorRecord {
  id: string;
  prompt: string;
  embedding: number[];
  CosineSimilarity: number;
  metadata: { loci: ReturnType<typeof sidecarOf> };
}

export interface FormattedExport {
  data: unknown;
  /** Records written in that shape. */
  records: number;
  warnings: string[];
}

/**
 * An export in another program's shape. Each entry carries what that shape has no place
 * for under `loci` (ignored by JsonUtility, Newtonsoft and Go's encoding/json), so
 * importing the file gives back the same records, vectors kept for the same embedder.
 */
export function formatExport(data: MemoryExport, format: ExportFormat): FormattedExport {
  switch (format) {
    case 'loci':
      return { data, records: data.records.length, warnings: [] };
    case 'unity':
      return toUnityLog(data);
    case 'go-agent':
      return toGoVectorStore(data);
    default:
      throw new LociError('INVALID_ARGUMENT', `Unknown export format "${String(format)}"; use one of ${exportFormats.join(', ')}.`);
  }
}

/** The interactions as a Unity `memory_log.json` (a JSON array of InteractionRecord). */
function toUnityLog(data: MemoryExport): FormattedExport {
  const log: UnityInteractionRecord[] = [];
  for (const record of data.records) {
    if (record.kind !== 'interaction' || !record.fields) continue;
    const fields = record.fields as InteractionFields;
    const { fields: _fields, ...sidecar } = sidecarOf(record, data.embedder);
    log.push({
      Id: record.id,
      UserPrompt: fields.prompt,
      LLMResponse: fields.response,
      Outcome: Math.max(0, UNITY_OUTCOMES.indexOf(fields.outcome)),
      ...(fields.feedback !== undefined && fields.feedback !== '' ? { Feedback: fields.feedback } : {}),
      ...(fields.multiStep !== undefined ? { isMultiStep: fields.multiStep } : {}),
      PromptEmbedding: record.embedding ?? [],
      Timestamp: new Date(record.time).toISOString(),
      loci: sidecar,
    });
  }
  const skipped = data.records.length - log.length;
  return {
    data: log,
    records: log.length,
    warnings: skipped > 0 ? [`${skipped} records are not interactions (notes, turns, knowledge) and have no place in a Unity memory log; they were left out.`] : [],
  };
}

/** Every record as a Go agent vector store: `{"Records": {id: {id, prompt, embedding, CosineSimilarity}}}`. */
function toGoVectorStore(data: MemoryExport): FormattedExport {
  const records: Record<string, GoVectorRecord> = {};
  for (const record of data.records) {
    records[record.id] = { id: record.id, prompt: record.text, embedding: record.embedding ?? [], CosineSimilarity: 0, metadata: { loci: sidecarOf(record, data.embedder) } };
  }
  return { data: { Records: records }, records: data.records.length, warnings: [] };
}
