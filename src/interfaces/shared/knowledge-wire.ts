import type { KnowledgeStoreInfo } from '../../memory/knowledge.js';
import { publicHit } from '../../memory/public-record.js';
import type { KnowledgeFields, MemoryHit } from '../../memory/spec.js';
import type { Roots } from './roots.js';
import { redactPaths } from './wire-paths.js';

// Knowledge loaded by the user's own CLI names its file by an absolute path; over HTTP and
// MCP a source inside a served root is shown relative to it, any other by its last part.

export function wireText(text: string, roots: Roots): string {
  return redactPaths(text, roots.list());
}

export function publicKnowledgeStore(store: KnowledgeStoreInfo, roots: Roots): KnowledgeStoreInfo {
  return { ...store, sources: store.sources.map((source) => ({ ...source, name: wireText(source.name, roots) })) };
}

export function publicKnowledgeHit(hit: MemoryHit, roots: Roots) {
  const out = publicHit(hit);
  const fields = out.fields as KnowledgeFields | undefined;
  return fields?.source !== undefined ? { ...out, fields: { ...fields, source: wireText(fields.source, roots) } } : out;
}
