import { throwIfAborted } from '../errors/index.js';
import type { Store } from '../store/spec.js';
import { textsAgree } from './agreement.js';
import { dedupeKey } from './inputs.js';
import { namespacePrefix } from './namespace.js';
import type { MemoryHit, MemoryKind, MemoryRecord, RecallOptions } from './spec.js';

export const DEDUPE_KINDS: ReadonlySet<MemoryKind> = new Set(['note', 'knowledge']);

export interface DedupeContext {
  store: Store;
  /** Whether the memory has vectors (a near-identical vector then counts as a twin). */
  hasVectors: boolean;
  dedupeSimilarity: number;
  recall(query: string, options: RecallOptions): Promise<MemoryHit[]>;
}

/**
 * Notes and knowledge whose normalised text, or vector, matches a record in the same
 * namespace merge into it, when the two agree on numbers, negations and names
 * (agreement.ts); a twin that disagrees is kept apart and linked (conflictsWith).
 */
export async function mergeDuplicates(context: DedupeContext, records: MemoryRecord[], signal?: AbortSignal): Promise<MemoryRecord[]> {
  const result: MemoryRecord[] = [];
  const byKey = new Map<string, MemoryRecord>();
  const populated = new Map<string, boolean>();
  for (const record of records) {
    if (!DEDUPE_KINDS.has(record.kind)) {
      result.push(record);
      continue;
    }
    throwIfAborted(signal);
    const key = `${record.namespace}\n${dedupeKey(record)}`;
    let twin = byKey.get(key);
    if (!twin) {
      let hasRecords = populated.get(record.namespace);
      if (hasRecords === undefined) {
        hasRecords = (await context.store.countCatalog(namespacePrefix(record.namespace))) > 0;
        populated.set(record.namespace, hasRecords);
      }
      if (hasRecords) twin = await storedTwin(context, record);
    }
    if (twin && twin.id !== record.id && !textsAgree(twin.text, record.text)) {
      // Near-identical but contradicting ("port 5432" / "port 6543"): both are kept and
      // linked, and recall ranks the newer above the older.
      record.conflictsWith = [...new Set([...(record.conflictsWith ?? []), twin.id])];
      twin = undefined;
    }
    if (twin && twin.id !== record.id) {
      const merged: MemoryRecord = { ...twin, time: Math.max(twin.time, record.time), updatedAt: record.updatedAt, mergedCount: twin.mergedCount + 1 };
      if (record.metadata) merged.metadata = { ...twin.metadata, ...record.metadata };
      const index = result.indexOf(twin);
      if (index >= 0) result[index] = merged;
      else result.push(merged);
      byKey.set(key, merged);
      continue;
    }
    byKey.set(key, record);
    result.push(record);
  }
  return result;
}

/**
 * A stored record of the same kind and namespace that this one duplicates: the same
 * normalised text, or a vector at least `dedupeSimilarity` similar. One indexed recall
 * finds both, so adding a note costs the same in a namespace of ten or of a million.
 */
async function storedTwin(context: DedupeContext, record: MemoryRecord): Promise<MemoryRecord | undefined> {
  const key = dedupeKey(record);
  const query = record.text.slice(0, 2000);
  // Recall reads the namespaces under this one too; a note merges only within its own.
  const found = /[\p{L}\p{N}]/u.test(query) ? await context.recall(query, { namespaces: [record.namespace], kinds: [record.kind], topK: 10 }) : [];
  const hits = found.filter((hit) => hit.record.namespace === record.namespace).slice(0, 5);
  const same = hits.find((hit) => dedupeKey(hit.record) === key);
  if (same && textsAgree(same.record.text, record.text)) return same.record;
  const threshold = context.dedupeSimilarity;
  const similar = hits.filter((hit) => hit === same || (context.hasVectors && (hit.signals.vector ?? -1) >= threshold));
  // An agreeing twin is merged into; otherwise the closest one is returned to be linked.
  return (similar.find((hit) => textsAgree(hit.record.text, record.text)) ?? similar[0])?.record;
}
