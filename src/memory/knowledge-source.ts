import { readFile, stat } from 'node:fs/promises';
import { chunkFile } from '../chunk/index.js';
import { LociError } from '../errors/index.js';
import { sha256Hex } from '../sources/content-hash.js';
import type { MemoryCore } from './memory-core.js';
import type { KnowledgeFields, MemoryInput, SourceReader } from './spec.js';

/** Where a knowledge store's sections come from. `name` is their `fields.source`. */
export interface KnowledgeSource {
  name: string;
  /** A file: an absolute path (the user's own), or a root-relative one read through the safe reader (`confined`). Absent: markdown text given at load. */
  file?: string;
  confined?: boolean;
}

/** What the store knows of a source since its last build. */
export interface SourceState {
  hash: string;
  size?: number;
  mtimeMs?: number;
  ids: string[];
  loadedAt?: number;
}

export type { SourceReader } from './spec.js';

export function checkSourceName(name: string): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > 1024 || /[\u0000-\u001f]/.test(name)) {
    throw new LociError('INVALID_ARGUMENT', 'A knowledge source name must be 1–1024 printable characters.');
  }
  return name;
}

/** The source's text now (a file is read; a confined file through the project's safe reader). */
export async function readKnowledgeSource(source: KnowledgeSource, reader: SourceReader | undefined, signal?: AbortSignal): Promise<{ text: string; size?: number; mtimeMs?: number }> {
  if (source.file === undefined) throw new LociError('INVALID_ARGUMENT', `Knowledge source ${source.name} was given as text; load it again to change it.`);
  if (source.confined) {
    if (!reader) throw new LociError('NOT_SUPPORTED', 'This memory has no project folder to read knowledge files from.');
    return reader(source.file, signal);
  }
  try {
    const info = await stat(source.file);
    return { text: await readFile(source.file, 'utf8'), size: info.size, mtimeMs: info.mtimeMs };
  } catch (error) {
    throw unreadable(source.file, error);
  }
}

/**
 * Rebuilds a source when its content changed since the last build. A trusted file whose
 * size and mtime are unchanged is not even read. New sections are written before old ones
 * go, so a crash in between leaves the old knowledge searchable; the state is saved last,
 * so the next load finishes the job.
 */
export async function refreshSource(
  memory: MemoryCore,
  target: { namespace: string; source: KnowledgeSource; stateKey: string; signal?: AbortSignal },
  read: () => Promise<{ text: string; size?: number; mtimeMs?: number }>,
): Promise<{ rebuilt: boolean; sections: number }> {
  const store = memory.records.store;
  const raw = await store.readState(target.stateKey);
  const previous = raw ? (JSON.parse(raw) as SourceState) : undefined;
  const { source } = target;
  if (previous && source.file !== undefined && !source.confined && previous.size !== undefined) {
    const info = await stat(source.file).catch((error: unknown) => {
      throw unreadable(source.file as string, error);
    });
    if (previous.size === info.size && previous.mtimeMs === info.mtimeMs) return { rebuilt: false, sections: previous.ids.length };
  }
  const current = await read();
  const hash = sha256Hex(current.text);
  const sizes = { ...(current.size !== undefined ? { size: current.size } : {}), ...(current.mtimeMs !== undefined ? { mtimeMs: current.mtimeMs } : {}) };
  if (previous && previous.hash === hash) {
    await store.writeState(target.stateKey, JSON.stringify({ ...previous, ...sizes }));
    return { rebuilt: false, sections: previous.ids.length };
  }
  const drafts = await chunkFile({ path: source.file ?? source.name, text: current.text, language: 'markdown', tokenBudget: 500, windowLines: 100, windowOverlap: 0 });
  // Ids are unique per store: the same file loaded into two namespaces gets two sets of ids.
  const idPrefix = sha256Hex(`${target.namespace}\n${source.name}\n${hash}`).slice(0, 10);
  const inputs: MemoryInput[] = drafts.map((draft, index) => {
    const fields: KnowledgeFields = { source: source.name, headingPath: draft.headingPath ?? [] };
    return { namespace: target.namespace, kind: 'knowledge', id: `k${idPrefix}-${index}`, text: draft.text, fields, metadata: { startLine: draft.startLine, endLine: draft.endLine } };
  });
  const written = await memory.addMany(inputs, { dedupe: false, replace: true, ...(target.signal ? { signal: target.signal } : {}) });
  const keep = new Set(written.map((record) => record.id));
  const stale = (await memory.records.list({ namespaces: [target.namespace], kinds: ['knowledge'], includeExpired: true })).filter(
    (record) => (record.fields as KnowledgeFields | undefined)?.source === source.name && !keep.has(record.id),
  );
  await memory.records.delete(stale);
  await store.writeState(target.stateKey, JSON.stringify({ hash, ...sizes, ids: [...keep], loadedAt: Date.now() } satisfies SourceState));
  return { rebuilt: true, sections: written.length };
}

function unreadable(file: string, error: unknown): LociError {
  const code = (error as NodeJS.ErrnoException).code;
  // A missing file is FILE_NOT_FOUND (as for includes), not a missing root folder.
  return new LociError(code === 'ENOENT' || code === 'ENOTDIR' ? 'FILE_NOT_FOUND' : 'ROOT_NOT_FOUND', `Knowledge file ${file} cannot be read (${code ?? 'error'}).`, {
    hint: 'Pass the path of an existing markdown file.',
  });
}
