import { checkKeys } from '../errors/check-types.js';
import { LociError } from '../errors/index.js';
import { normalizeNamespace } from './namespace.js';
import { checkId, checkSize, newMemoryId } from './records.js';
import { checkTime } from './time-range.js';
import type { LociConfig } from '../config/schema.js';
import type { EmbeddingModel } from '../embed/spec.js';
import type { Store } from '../store/spec.js';
import type { SourceReader } from './spec.js';
import { memoryKinds, type InteractionOutcome, type MemoryInput, type MemoryRecord } from './spec.js';

export interface MemoryContext {
  store: Store;
  model: EmbeddingModel | undefined;
  config: LociConfig['memory'];
  /** Keep an in-memory index for fast recall (default true). */
  inMemory?: boolean;
  /** Where the vector graph of a large memory is kept between processes. */
  graphFile?: string;
  /** Where the whole in-memory index is kept between processes (a segment file). */
  segmentFile?: string;
  /** Why `model` is missing although an embedder was asked for (it could not be set up): degraded, said in warnings. */
  modelUnavailable?: LociError;
  /** Reads a file inside the project folder by its rules (knowledge files named by HTTP or MCP callers). */
  readSource?: SourceReader;
}

export interface AddOptions {
  /** Merge notes and knowledge into a near-identical record of the same namespace (default true). */
  dedupe?: boolean;
  /**
   * Replace a record that already has the same id in the same namespace (default false:
   * an existing id is a MEMORY_ID_CONFLICT; change records with `update`). For callers that
   * rewrite what they own, such as knowledge files. Another namespace's id still conflicts.
   */
  replace?: boolean;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** What a wrapped command reports back to the interaction log. */
export interface InteractionLog {
  response?: string;
  feedback?: string;
  outcome?: InteractionOutcome;
  multiStep?: boolean;
  metadata?: Record<string, unknown>;
  /** Filled in after the command: the log was stored without a vector, or could not be stored (it never replaces the command's own result). */
  warnings?: string[];
}

export function conversationNamespace(conversationId: string): string {
  return `conversations/${conversationId.replace(/[^A-Za-z0-9._:@+-]/g, '_')}`;
}

const MEMORY_INPUT_KEYS = ['namespace', 'text', 'kind', 'id', 'time', 'ttlMs', 'context', 'fields', 'metadata'] satisfies Array<keyof MemoryInput>;

export function toRecord(input: MemoryInput, now: number, index: number): MemoryRecord {
  if (!input || typeof input !== 'object') throw new LociError('INVALID_ARGUMENT', `Memory input ${index} is not an object.`);
  checkKeys(input, MEMORY_INPUT_KEYS, `memory input ${index}`, { shared: false });
  const kind = input.kind ?? 'note';
  if (!memoryKinds.includes(kind)) throw new LociError('INVALID_ARGUMENT', `Unknown memory kind "${String(kind)}"; use one of ${memoryKinds.join(', ')}.`);
  const namespace = normalizeNamespace(typeof input.namespace === 'string' ? input.namespace : '');
  const text = requireText(input.text, `text of memory input ${index}`);
  const time = checkTime(input.time ?? now, `time of memory input ${index}`);
  const record: MemoryRecord = { id: input.id !== undefined ? checkId(input.id) : newMemoryId(), namespace, kind, text, time, updatedAt: now, mergedCount: 0 };
  if (input.ttlMs !== undefined) {
    if (!(input.ttlMs > 0)) throw new LociError('INVALID_ARGUMENT', `ttlMs must be positive; got ${input.ttlMs}.`);
    record.expiresAt = checkTime(time + input.ttlMs, `time + ttlMs of memory input ${index}`);
  }
  if (input.fields) record.fields = input.fields;
  if (input.metadata) record.metadata = input.metadata;
  if (input.context !== undefined && input.context.trim() !== '') record.context = input.context.slice(0, 4000);
  checkSize(record, input.id !== undefined ? `Memory record ${record.id}` : `The text of memory input ${index}`);
  return record;
}

export function dedupeKey(record: MemoryRecord): string {
  return `${record.kind}\n${record.text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()}`;
}

export function requireText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new LociError('INVALID_ARGUMENT', `${name} must be a non-empty string.`);
  return value;
}

export function pick<T extends object, K extends keyof T>(source: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

export function isAbort(error: unknown): boolean {
  return (error instanceof Error && error.name === 'AbortError') || (error instanceof LociError && error.code === 'ABORTED');
}

export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
