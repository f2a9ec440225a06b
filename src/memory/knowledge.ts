import { resolve } from 'node:path';
import type { LociConfig } from '../config/schema.js';
import { LociError } from '../errors/index.js';
import type { MemoryCore } from './memory-core.js';
import { normalizeNamespace } from './namespace.js';
import { checkSourceName, readKnowledgeSource, refreshSource, type KnowledgeSource, type SourceReader, type SourceState } from './knowledge-source.js';
import type { MemoryHit, RecallMode } from './spec.js';

export type { KnowledgeSource } from './knowledge-source.js';

export interface KnowledgeSearchOptions {
  /** Minimum cosine similarity (default config memory.knowledgeThreshold, 0.5). */
  threshold?: number;
  /** Results (default config memory.knowledgeTopK, 2). */
  topK?: number;
  /** hybrid (default: relevance above the threshold) or cosine (order by cosine alone, as the Go agent does). */
  mode?: Extract<RecallMode, 'hybrid' | 'cosine'>;
  signal?: AbortSignal;
}

/** What a door asks to load: a file (trusted path, or one inside the served root) or markdown text. */
export interface KnowledgeLoadInput {
  path?: string;
  /** Read `path` through the root's safe reader (callers over HTTP or MCP): inside the root, ignore and secret rules apply. */
  confined?: boolean;
  markdown?: string;
  /** Name of inline markdown (default `inline.md`); loading the same name again replaces it. */
  source?: string;
  signal?: AbortSignal;
}

export interface KnowledgeStoreInfo {
  agent: string;
  namespace: string;
  sections: number;
  sources: Array<{ name: string; kind: 'file' | 'text'; sections: number; loadedAt: number | undefined }>;
}

export interface KnowledgeSearchReport {
  agent: string;
  namespace: string;
  results: MemoryHit[];
  /** Whether a source changed and was rebuilt before searching. */
  rebuilt: boolean;
  /** A source that could not be read (its earlier sections were searched). */
  warnings: string[];
}

interface Registration {
  agent: string;
  sources: KnowledgeSource[];
}

const REGISTRY_PREFIX = 'knowledge-store:';

/** Per-agent knowledge stores (the Go agent's `{agent}_vector_store.json`, kept current). */
export class KnowledgeStores {
  constructor(
    private readonly memory: MemoryCore,
    private readonly config: LociConfig['memory'],
    private readonly reader?: SourceReader,
  ) {}

  /**
   * Loads an agent's knowledge built from a markdown file, building it on first use and
   * rebuilding it whenever the file's content changes (checked again before each search).
   */
  async loadOrCreate(agent: string, markdownPath: string, options: { signal?: AbortSignal } = {}): Promise<KnowledgeStore> {
    return this.load(agent, { path: markdownPath, ...options });
  }

  /** Load-or-create from a file or from markdown text; the store remembers the source for later searches. */
  async load(agent: string, input: KnowledgeLoadInput): Promise<KnowledgeStore> {
    const namespace = knowledgeNamespace(agent);
    const { source, text } = await this.sourceOf(input);
    const registration = (await this.registration(agent)) ?? { agent, sources: [] };
    const store = new KnowledgeStore(this.memory, this.config, namespace, [source], this.reader);
    await store.refresh(input.signal, { strict: true, ...(text !== undefined ? { text } : {}) });
    registration.sources = [...registration.sources.filter((known) => known.name !== source.name), source];
    await this.memory.records.store.writeState(REGISTRY_PREFIX + agent, JSON.stringify(registration));
    return store;
  }

  /** A store loaded before (by any door), or undefined. */
  async open(agent: string): Promise<KnowledgeStore | undefined> {
    const registration = await this.registration(agent);
    return registration ? new KnowledgeStore(this.memory, this.config, knowledgeNamespace(agent), registration.sources, this.reader) : undefined;
  }

  /**
   * Searches a loaded store: its sources are checked first (a changed file is rebuilt; one
   * that cannot be read now leaves its sections as they were, with a warning).
   */
  async search(agent: string, query: string, options: KnowledgeSearchOptions = {}): Promise<KnowledgeSearchReport> {
    const store = await this.open(agent);
    if (!store) throw notLoaded(agent);
    const warnings: string[] = [];
    const rebuilt = await store.refresh(options.signal, { warn: (warning) => warnings.push(warning) });
    return { agent, namespace: store.namespace, results: await store.searchLoaded(query, options), rebuilt, warnings };
  }

  async list(): Promise<KnowledgeStoreInfo[]> {
    const stores: KnowledgeStoreInfo[] = [];
    for (const [key, value] of await this.memory.records.store.listState()) {
      if (!key.startsWith(REGISTRY_PREFIX) || value === '') continue;
      const registration = JSON.parse(value) as Registration;
      const namespace = knowledgeNamespace(registration.agent);
      const sources = [];
      for (const source of registration.sources) {
        const state = await this.sourceState(namespace, source.name);
        sources.push({ name: source.name, kind: source.file === undefined ? ('text' as const) : ('file' as const), sections: state?.ids.length ?? 0, loadedAt: state?.loadedAt });
      }
      stores.push({ agent: registration.agent, namespace, sections: sources.reduce((sum, source) => sum + source.sections, 0), sources });
    }
    return stores.sort((a, b) => (a.agent < b.agent ? -1 : 1));
  }

  /** Forgets an agent's store: its sections and what it knew of its sources. Returns the sections removed. */
  async drop(agent: string): Promise<number> {
    const registration = await this.registration(agent);
    if (!registration) throw notLoaded(agent);
    const namespace = knowledgeNamespace(agent);
    const sections = await this.memory.records.list({ namespaces: [namespace], kinds: ['knowledge'], includeExpired: true });
    await this.memory.records.delete(sections);
    const store = this.memory.records.store;
    for (const source of registration.sources) await store.writeState(sourceStateKey(namespace, source.name), '');
    await store.writeState(REGISTRY_PREFIX + agent, '');
    return sections.length;
  }

  /** The source to load and, when it was given or had to be read to be named, its text. */
  private async sourceOf(input: KnowledgeLoadInput): Promise<{ source: KnowledgeSource; text?: string }> {
    if ((input.path === undefined) === (input.markdown === undefined))
      throw new LociError('INVALID_ARGUMENT', 'Give a knowledge store either a markdown file (path) or markdown text, not both or neither.');
    if (input.markdown !== undefined) return { source: { name: checkSourceName(input.source ?? 'inline.md') }, text: input.markdown };
    if (input.confined) {
      if (!this.reader) throw new LociError('NOT_SUPPORTED', 'This memory has no project folder to read knowledge files from; send the markdown text instead.');
      // Named by its path relative to the root, however the caller spelled it.
      const file = await this.reader(input.path as string, input.signal);
      return { source: { name: file.path, file: file.path, confined: true }, text: file.text };
    }
    const absolute = resolve(input.path as string);
    return { source: { name: absolute, file: absolute } };
  }

  private async registration(agent: string): Promise<Registration | undefined> {
    knowledgeNamespace(agent);
    const raw = await this.memory.records.store.readState(REGISTRY_PREFIX + agent);
    return raw ? (JSON.parse(raw) as Registration) : undefined;
  }

  private async sourceState(namespace: string, name: string): Promise<SourceState | undefined> {
    const raw = await this.memory.records.store.readState(sourceStateKey(namespace, name));
    return raw ? (JSON.parse(raw) as SourceState) : undefined;
  }
}

/** An agent name is one namespace segment: letters, digits and . _ : @ + - (`boss`, `npc.merchant`). */
export function knowledgeNamespace(agent: string): string {
  if (typeof agent !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$/.test(agent)) {
    throw new LociError('INVALID_ARGUMENT', `Invalid agent name ${JSON.stringify(String(agent)).slice(0, 140)}: 1–128 letters, digits and . _ : @ + -, starting with a letter or digit.`);
  }
  return normalizeNamespace(`agents/${agent}/knowledge`);
}

export function sourceStateKey(namespace: string, name: string): string {
  return `knowledge:${namespace}:${name}`;
}

function notLoaded(agent: string): LociError {
  return new LociError('RECORD_NOT_FOUND', `No knowledge store for agent ${agent}.`, { hint: `Load one first: loci knowledge load ${agent} <file.md> (HTTP POST /v1/knowledge/${agent}/load).` });
}

/** One agent's knowledge: the sections of its sources, searched by similarity. */
export class KnowledgeStore {
  /** Whether the last refresh rebuilt the store (first build or a changed file). */
  rebuilt = false;
  sections = 0;
  private readonly sources: KnowledgeSource[];

  constructor(
    private readonly memory: MemoryCore,
    private readonly config: LociConfig['memory'],
    readonly namespace: string,
    sources: string | KnowledgeSource[],
    private readonly reader?: SourceReader,
  ) {
    this.sources = typeof sources === 'string' ? [{ name: resolve(sources), file: resolve(sources) }] : sources;
  }

  /** The first source's name (a file's absolute path, or the root-relative path or name a door gave). */
  get source(): string {
    return this.sources[0]?.name ?? '';
  }

  /**
   * Rebuilds each source whose content changed since the last build; cheap (a stat) when
   * a trusted file did not. `strict`: an unreadable source throws; else it is reported to
   * `warn` and its sections stay.
   */
  async refresh(signal?: AbortSignal, options: { strict?: boolean; text?: string; warn?: (warning: string) => void } = { strict: true }): Promise<boolean> {
    let rebuilt = false;
    let sections = 0;
    for (const source of this.sources) {
      if (source.file === undefined && options.text === undefined) {
        // Markdown given as text has no file to re-check: its sections stand until loaded again.
        const raw = await this.memory.records.store.readState(sourceStateKey(this.namespace, source.name));
        sections += raw ? (JSON.parse(raw) as SourceState).ids.length : 0;
        continue;
      }
      try {
        const outcome = await refreshSource(this.memory, { namespace: this.namespace, source, stateKey: sourceStateKey(this.namespace, source.name), ...(signal ? { signal } : {}) }, () =>
          options.text !== undefined ? Promise.resolve({ text: options.text }) : readKnowledgeSource(source, this.reader, signal),
        );
        rebuilt ||= outcome.rebuilt;
        sections += outcome.sections;
      } catch (error) {
        if (options.strict !== false && !options.warn) throw error;
        if (!(error instanceof LociError) || !['ROOT_NOT_FOUND', 'FILE_NOT_FOUND', 'PATH_OUTSIDE_ROOT', 'PATH_EXCLUDED', 'NOT_A_REGULAR_FILE', 'FILE_TOO_LARGE'].includes(error.code)) throw error;
        options.warn?.(`Knowledge source ${source.name} was not re-read (${error.message}); its sections from the last load were searched.`);
        const raw = await this.memory.records.store.readState(sourceStateKey(this.namespace, source.name));
        sections += raw ? (JSON.parse(raw) as SourceState).ids.length : 0;
      }
    }
    this.rebuilt = rebuilt;
    this.sections = sections;
    return rebuilt;
  }

  /** Sections most similar to the query, above the similarity threshold, best first. */
  async search(query: string, options: KnowledgeSearchOptions = {}): Promise<MemoryHit[]> {
    await this.refresh(options.signal);
    return this.searchLoaded(query, options);
  }

  /** search() without checking the sources first. */
  async searchLoaded(query: string, options: KnowledgeSearchOptions = {}): Promise<MemoryHit[]> {
    if (this.sections === 0) return [];
    const vectors = this.memory.records.model !== undefined;
    const threshold = options.threshold ?? this.config.knowledgeThreshold;
    return this.memory.recall(query, {
      namespaces: [this.namespace],
      kinds: ['knowledge'],
      topK: options.topK ?? this.config.knowledgeTopK,
      ...(options.mode ? { mode: options.mode } : {}),
      ...(vectors ? { minSimilarity: threshold } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}
