import { sha256Hex } from '../sources/content-hash.js';
import { normalizeNamespace } from './namespace.js';
import { checkId, searchableText } from './records.js';
import { parseTime } from './parse-time.js';
import { checkTime } from './time-range.js';
import { interactionOutcomes, type InteractionOutcome, type MemoryRecord } from './spec.js';
import { at, invalid, readSidecar, recordFromParts, type ImportOptions, type LociSidecar, type Parsed } from './transfer-parse.js';

/** `{Records: {id: {id, prompt, embedding}}}` (keys in any case, as Go's encoder writes them). */
export function goRecords(data: unknown): Record<string, unknown> | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const value = field(data as Record<string, unknown>, 'records');
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The Go agent's vector store; a loci export in that shape carries each record's other fields under `metadata.loci`. */
export function parseGo(entries: Record<string, unknown>, options: ImportOptions): Parsed {
  const vectors = new Map<string, number[]>();
  const sidecars: LociSidecar[] = [];
  const time = Date.now();
  const records = Object.entries(entries).map(([key, value], index): MemoryRecord => {
    if (!value || typeof value !== 'object') throw invalid(`Records["${key}"] is not an object.`);
    const entry = value as Record<string, unknown>;
    const prompt = field(entry, 'prompt');
    if (typeof prompt !== 'string' || prompt.trim() === '') throw invalid(`Records["${key}"].prompt must be a non-empty string.`);
    const rawId = field(entry, 'id');
    const id = at(index, () => checkId(sanitizeId(typeof rawId === 'string' && rawId !== '' ? rawId : key)));
    const metadata = field(entry, 'metadata');
    const plainMetadata = metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : undefined;
    const sidecar = readSidecar(plainMetadata?.loci, `Records["${key}"].metadata`);
    const namespace = namespaceFor(options, sidecar, 'Go vector store');
    const embedding = field(entry, 'embedding');
    if (Array.isArray(embedding) && embedding.length > 0) vectors.set(`${namespace}/#${id}`, numbers(embedding, `Records["${key}"].embedding`));
    else if (embedding !== undefined && embedding !== null) numbers(embedding, `Records["${key}"].embedding`);
    if (sidecar) {
      sidecars.push(sidecar);
      return recordFromParts(index, { ...sidecar, namespace, id, text: prompt });
    }
    const record: MemoryRecord = { id, namespace, kind: 'knowledge', text: prompt, time, updatedAt: time, mergedCount: 0, fields: { source: 'go-vector-store', headingPath: [] } };
    if (plainMetadata && Object.keys(plainMetadata).length > 0) record.metadata = plainMetadata;
    return record;
  });
  return { format: 'go-vector-store', records, vectors, vectorsFrom: options.vectorsFrom ?? sharedEmbedder(sidecars, records.length) };
}

/** A Unity `memory_log.json`: an array of InteractionRecord, or JsonUtility's `{records|Records: [...]}` wrapper. */
export function unityRecords(data: unknown): unknown[] | undefined {
  const list = Array.isArray(data) ? data : data && typeof data === 'object' ? Object.values(data as object).find(Array.isArray) : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.length === 0 || list.some((item) => item && typeof item === 'object' && field(item as Record<string, unknown>, 'userprompt') !== undefined) ? list : undefined;
}

export function parseUnity(list: unknown[], options: ImportOptions): Parsed {
  const vectors = new Map<string, number[]>();
  const sidecars: LociSidecar[] = [];
  const base = Date.now() - list.length;
  const records = list.map((value, index): MemoryRecord => {
    if (!value || typeof value !== 'object') throw invalid(`record ${index} is not an object.`);
    const entry = value as Record<string, unknown>;
    const prompt = field(entry, 'userprompt');
    if (typeof prompt !== 'string' || prompt.trim() === '') throw invalid(`record ${index}: UserPrompt must be a non-empty string.`);
    const sidecar = readSidecar(field(entry, 'loci'), `record ${index}`);
    const namespace = namespaceFor(options, sidecar, 'Unity memory log');
    const response = field(entry, 'llmresponse');
    const feedback = field(entry, 'feedback');
    const multiStep = field(entry, 'ismultistep');
    const rawId = field(entry, 'id');
    // The log has no ids: one derived from the entry keeps re-imports idempotent.
    const id = typeof rawId === 'string' && rawId.trim() !== '' ? at(index, () => checkId(sanitizeId(rawId))) : `u${sha256Hex(`${index}\n${JSON.stringify(entry)}`).slice(0, 16)}`;
    const embedding = field(entry, 'promptembedding');
    if (Array.isArray(embedding) && embedding.length > 0) vectors.set(`${namespace}/#${id}`, numbers(embedding, `record ${index}: PromptEmbedding`));
    const stamp = parseTime(field(entry, 'timestamp') ?? field(entry, 'time'));
    const time = at(index, () => checkTime(stamp ?? sidecar?.time ?? base + index, 'Timestamp'));
    const fields = {
      prompt,
      response: response === undefined || response === null ? '' : typeof response === 'string' ? response : JSON.stringify(response),
      outcome: outcomeOf(field(entry, 'outcome'), index),
      ...(typeof feedback === 'string' && feedback !== '' ? { feedback } : {}),
      ...(typeof multiStep === 'boolean' ? { multiStep } : {}),
    };
    const text = searchableText('interaction', prompt, fields);
    if (sidecar) {
      sidecars.push(sidecar);
      // The log's own fields win over the sidecar's: a program may have edited them.
      const { fields: _fields, ...rest } = sidecar;
      return { ...recordFromParts(index, { ...rest, kind: 'interaction', namespace, id, text, time }), fields };
    }
    return { id, namespace, kind: 'interaction', text, time, updatedAt: time, mergedCount: 0, fields };
  });
  return { format: 'unity-memory-log', records, vectors, vectorsFrom: options.vectorsFrom ?? sharedEmbedder(sidecars, records.length) };
}

/** The embedder every entry's sidecar names, when all entries have one and they agree. */
function sharedEmbedder(sidecars: readonly LociSidecar[], total: number): string | undefined {
  const names = new Set(sidecars.map((sidecar) => sidecar.embedder));
  const [only] = names;
  return sidecars.length === total && names.size === 1 ? only : undefined;
}

function namespaceFor(options: ImportOptions, sidecar: LociSidecar | undefined, what: string): string {
  // A record that carries its namespace (a loci export in this shape) keeps it; --namespace is for files that carry none.
  const namespace = sidecar?.namespace ?? options.namespace;
  if (!namespace) throw invalid(`a ${what} names no namespace; pass one (CLI: --namespace agent/boss).`);
  return normalizeNamespace(namespace);
}

/** C# enums arrive as names ("Success") or, from JsonUtility, as their ordinal. */
function outcomeOf(value: unknown, index: number): InteractionOutcome {
  if (value === undefined || value === null) return 'success';
  if (typeof value === 'number') {
    const outcome = UNITY_OUTCOMES[value];
    if (outcome) return outcome;
  }
  const text = String(value).toLowerCase();
  if (text.startsWith('success') || text === 'ok') return 'success';
  if (text.startsWith('cancel') || text === 'aborted') return 'cancelled';
  if (['error', 'failure', 'failed', 'fail', 'exception'].includes(text)) return 'error';
  if ((interactionOutcomes as readonly string[]).includes(text)) return text as InteractionOutcome;
  throw invalid(`record ${index}: Outcome ${JSON.stringify(value)} is not Success, Error or Cancelled (or 0, 1, 2).`);
}

/** CommandOutcome's ordinals, as JsonUtility writes the enum. */
export const UNITY_OUTCOMES: readonly InteractionOutcome[] = ['success', 'error', 'cancelled'];

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
