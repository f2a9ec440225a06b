import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { chunkFile } from '../chunk/index.js';
import type { LociConfig } from '../config/schema.js';
import { LociError } from '../errors/index.js';
import { sha256Hex } from '../sources/content-hash.js';
import type { Memory } from './memory.js';
import { normalizeNamespace } from './namespace.js';
import type { KnowledgeFields, MemoryHit, MemoryInput } from './spec.js';

interface SourceState {
  hash: string;
  size: number;
  mtimeMs: number;
  ids: string[];
}

export interface KnowledgeSearchOptions {
  /** Minimum cosine similarity (default config memory.knowledgeThreshold, 0.5). */
  threshold?: number;
  /** Results (default config memory.knowledgeTopK, 2). */
  topK?: number;
  signal?: AbortSignal;
}

/** Per-agent knowledge stores (the Go agent's `{agent}_vector_store.json`, kept current). */
export class KnowledgeStores {
  constructor(
    private readonly memory: Memory,
    private readonly config: LociConfig['memory'],
  ) {}

  /**
   * Loads an agent's knowledge built from a markdown file, building it on first use and
   * rebuilding it whenever the file's content changes (checked again before each search).
   */
  async loadOrCreate(agent: string, markdownPath: string, options: { signal?: AbortSignal } = {}): Promise<KnowledgeStore> {
    const knowledge = new KnowledgeStore(this.memory, this.config, knowledgeNamespace(agent), resolve(markdownPath));
    await knowledge.refresh(options.signal);
    return knowledge;
  }
}

export function knowledgeNamespace(agent: string): string {
  return normalizeNamespace(`agents/${agent}/knowledge`);
}

export class KnowledgeStore {
  /** Whether the last refresh rebuilt the store (first build or a changed file). */
  rebuilt = false;
  sections = 0;

  constructor(
    private readonly memory: Memory,
    private readonly config: LociConfig['memory'],
    readonly namespace: string,
    readonly source: string,
  ) {}

  /** Rebuilds when the file changed since the last build; cheap (a stat) when it did not. */
  async refresh(signal?: AbortSignal): Promise<boolean> {
    const store = this.memory.records.store;
    const stateKey = `knowledge:${this.namespace}:${this.source}`;
    const raw = await store.readState(stateKey);
    const previous = raw ? (JSON.parse(raw) as SourceState) : undefined;
    let info;
    try {
      info = await stat(this.source);
    } catch (error) {
      throw new LociError('ROOT_NOT_FOUND', `Knowledge file ${this.source} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`, {
        hint: 'Pass the path of an existing markdown file.',
      });
    }
    if (previous && previous.size === info.size && previous.mtimeMs === info.mtimeMs) {
      this.rebuilt = false;
      this.sections = previous.ids.length;
      return false;
    }
    const text = await readFile(this.source, 'utf8');
    const hash = sha256Hex(text);
    if (previous && previous.hash === hash) {
      await store.writeState(stateKey, JSON.stringify({ ...previous, size: info.size, mtimeMs: info.mtimeMs }));
      this.rebuilt = false;
      this.sections = previous.ids.length;
      return false;
    }
    const drafts = await chunkFile({ path: this.source, text, language: 'markdown', tokenBudget: 500, windowLines: 100, windowOverlap: 0 });
    // Ids are unique per store: the same file loaded into two namespaces gets two sets of ids.
    const idPrefix = sha256Hex(`${this.namespace}\n${hash}`).slice(0, 10);
    const inputs: MemoryInput[] = drafts.map((draft, index) => {
      const fields: KnowledgeFields = { source: this.source, headingPath: draft.headingPath ?? [] };
      return { namespace: this.namespace, kind: 'knowledge', id: `k${idPrefix}-${index}`, text: draft.text, fields, metadata: { startLine: draft.startLine, endLine: draft.endLine } };
    });
    // New sections are written before old ones go, so a crash in between leaves the old
    // knowledge searchable; the state is saved last, so the next load finishes the job.
    const written = await this.memory.addMany(inputs, { dedupe: false, replace: true, ...(signal ? { signal } : {}) });
    const keep = new Set(written.map((record) => record.id));
    const stale = (await this.memory.records.list({ namespaces: [this.namespace], kinds: ['knowledge'], includeExpired: true })).filter(
      (record) => (record.fields as KnowledgeFields | undefined)?.source === this.source && !keep.has(record.id),
    );
    await this.memory.records.delete(stale);
    await store.writeState(stateKey, JSON.stringify({ hash, size: info.size, mtimeMs: info.mtimeMs, ids: [...keep] } satisfies SourceState));
    this.rebuilt = true;
    this.sections = written.length;
    return true;
  }

  /** Sections most similar to the query, above the similarity threshold, best first. */
  async search(query: string, options: KnowledgeSearchOptions = {}): Promise<MemoryHit[]> {
    await this.refresh(options.signal);
    if (this.sections === 0) return [];
    const vectors = this.memory.records.model !== undefined;
    return this.memory.recall(query, {
      namespaces: [this.namespace],
      kinds: ['knowledge'],
      topK: options.topK ?? this.config.knowledgeTopK,
      ...(vectors ? { minSimilarity: options.threshold ?? this.config.knowledgeThreshold } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}
