import { LociError } from '../errors/index.js';
import { MAX_RECORD_CHARS } from './records.js';
import type { MemoryRecord, MemoryVersion } from './spec.js';

/** The 20 latest replaced texts, and no more than MAX_RECORD_CHARS of them: history must not grow a record without bound. */
const MAX_VERSIONS = 20;

export function keepVersion(existing: MemoryRecord, replacedAt: number): MemoryVersion[] {
  const version: MemoryVersion = { text: existing.text, updatedAt: existing.updatedAt, replacedAt };
  if (existing.fields && (existing.kind === 'turn' || existing.kind === 'interaction')) version.fields = existing.fields;
  const versions = [...(existing.versions ?? []), version].slice(-MAX_VERSIONS);
  let chars = versions.reduce((sum, entry) => sum + entry.text.length, 0);
  while (versions.length > 1 && chars > MAX_RECORD_CHARS) chars -= (versions.shift() as MemoryVersion).text.length;
  return versions;
}

export function idConflict(id: string, namespaces: string[], message?: string, hint?: string): LociError {
  return new LociError('MEMORY_ID_CONFLICT', message ?? `Memory id ${id} already exists (namespace ${namespaces.join(', ')}); ids are unique per store.`, {
    hint: hint ?? 'Change that record with update (HTTP PATCH /v1/memory/records/<id>, CLI `loci memory update`), or leave the id out to get a new one.',
    details: { id, namespaces },
  });
}
