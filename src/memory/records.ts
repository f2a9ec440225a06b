import { isWellFormed } from '../store/well-formed.js';
import { chunkFile } from '../chunk/index.js';
import { LociError } from '../errors/index.js';
import { sha256Hex } from '../sources/content-hash.js';
import { prepareChunks, type PreparedChunk } from '../indexing/prepare-chunks.js';
import { lexicalFieldsOf } from '../lexical/fields.js';
import type { CatalogEntry } from '../store/spec.js';
import { clampTime, isValidTime } from './time-range.js';
import { recordPath } from './namespace.js';
import type { InteractionFields, KnowledgeFields, MemoryKind, MemoryRecord, TurnFields } from './spec.js';

export const MAX_RECORD_CHARS = 100_000;
const CHUNKING = { tokenBudget: 500, windowLines: 100, windowOverlap: 10 };

/** The text a record is searched by, derived from its fields where it has them. */
export function searchableText(kind: MemoryKind, text: string, fields: MemoryRecord['fields']): string {
  if (kind === 'turn' && fields) {
    const turn = fields as TurnFields;
    return `User: ${turn.userQuery}\nAssistant: ${turn.assistantResponse}`;
  }
  if (kind === 'interaction' && fields) return (fields as InteractionFields).prompt;
  return text;
}

/** Refuses a record over MAX_RECORD_CHARS; `what` names it in the message (a new record's generated id would name nothing the caller knows). */
export function checkSize(record: Pick<MemoryRecord, 'id' | 'text'>, what = `Memory record ${record.id}`): void {
  if (record.text.length > MAX_RECORD_CHARS) {
    throw new LociError('INVALID_ARGUMENT', `${what} is ${record.text.length} characters; the limit is ${MAX_RECORD_CHARS}.`, {
      hint: 'Split it into several records (e.g. one per section), or store a summary.',
      details: { length: record.text.length, limit: MAX_RECORD_CHARS },
    });
  }
}

/** Chunks a record for the store; the record's kind doubles as the chunk "language" for filters. */
export async function prepareRecord(record: MemoryRecord): Promise<PreparedChunk[]> {
  const path = recordPath(record.namespace, record.id);
  const title = record.kind === 'knowledge' ? (record.fields as KnowledgeFields | undefined)?.headingPath.join(' > ') : undefined;
  const drafts = await chunkFile({ path, text: record.text, language: 'text', ...CHUNKING, ...(title ? { title } : {}) });
  const prepared = prepareChunks(drafts, { path, language: record.kind, pathIsContent: false });
  // The record's date is searchable as words ("May 2023", "2023-05-08") in the heading
  // field, so "what happened in May 2023" finds it; the embedding input is left alone.
  const when = dateWords(record.time);
  const context = record.context ?? '';
  for (const chunk of prepared) {
    const write = chunk.write;
    Object.assign(write, lexicalFieldsOf({ path: '', symbols: (write.symbols ?? []).join(' '), heading: [...(write.headingPath ?? []), when, context].join(' '), body: write.text }));
    // Its term counts now hold words its embedding input lacks: the text is embedded instead.
    chunk.embedsFromTerms = false;
  }
  return prepared;
}

const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const dayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** "Monday 8 May 2023 2023-05-08" (UTC). */
export function dateWords(time: number): string {
  const date = new Date(time);
  if (!Number.isFinite(date.getTime())) return '';
  const iso = date.toISOString().slice(0, 10);
  return `${dayNames[date.getUTCDay()]} ${date.getUTCDate()} ${monthNames[date.getUTCMonth()]} ${date.getUTCFullYear()} ${iso}`;
}

export function catalogEntryOf(record: MemoryRecord, chunkCount: number, chunker: string, embedder: string): CatalogEntry {
  return {
    path: recordPath(record.namespace, record.id),
    size: record.text.length,
    mtimeMs: record.time,
    contentHash: sha256Hex(record.text),
    language: record.kind,
    chunker,
    embedder,
    chunkCount,
    indexedAt: record.updatedAt,
    // Warnings describe how a row was read, not what it holds.
    attributes: JSON.stringify({ ...record, warnings: undefined }),
  };
}

export function recordOf(entry: CatalogEntry): MemoryRecord | undefined {
  if (!entry.attributes) return undefined;
  let record: MemoryRecord;
  try {
    record = JSON.parse(entry.attributes) as MemoryRecord;
  } catch {
    return undefined;
  }
  return record && typeof record === 'object' ? repairTimes(record) : undefined;
}

/**
 * Rows written before times were checked may hold times outside years 0001–9999 (or none):
 * they are clamped to the nearest valid time on read, and the record says so in `warnings`,
 * so one bad row cannot make recall, list or export throw for every reader.
 */
function repairTimes(record: MemoryRecord): MemoryRecord {
  const warnings: string[] = [];
  for (const field of ['time', 'updatedAt', 'expiresAt'] as const) {
    const value: unknown = record[field];
    if ((field === 'expiresAt' && value === undefined) || isValidTime(value)) continue;
    const repaired = clampTime(value, field === 'time' ? 0 : clampTime(record.time, 0));
    warnings.push(`${field} ${String(value)} is outside years 0001–9999; read as ${new Date(repaired).toISOString()}. Any update keeps the repaired time; or forget the record.`);
    record[field] = repaired;
  }
  if (warnings.length > 0) record.warnings = [...(Array.isArray(record.warnings) ? record.warnings : []), ...warnings];
  return record;
}

/** Sortable, unique ids: base-36 time then randomness. */
let lastIdTime = 0;
let idSequence = 0;

/**
 * A new record id: `m`, the time, a sequence within that millisecond, then randomness. Ids made
 * by one process sort in the order they were made (records of one millisecond, such as turns
 * written in a loop, are listed by id after time: a random id put them out of order).
 */
export function newMemoryId(): string {
  const now = Date.now();
  if (now > lastIdTime) {
    lastIdTime = now;
    idSequence = 0;
  } else idSequence++;
  const random = Array.from(crypto.getRandomValues(new Uint8Array(6)), (byte) => byte.toString(36).padStart(2, '0')).join('');
  // Fixed widths, so string order is numeric order: 9 digits of base 36 hold any time to the year 5188.
  return `m${lastIdTime.toString(36).padStart(9, '0')}${idSequence.toString(36).padStart(4, '0')}${random}`;
}

export function checkId(id: string): string {
  if (!/^[^/\s\p{Cc}\p{Cf}]{1,200}$/u.test(id) || !isWellFormed(id))
    throw new LociError('INVALID_ARGUMENT', `Invalid memory id ${JSON.stringify(id)}: 1–200 characters, no slashes, spaces or control characters, well-formed Unicode.`);
  return id;
}
