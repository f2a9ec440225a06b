import { existsSync } from 'node:fs';
import { LociError } from '../errors/index.js';
import type { Retriever } from '../retrieve/search.js';
import { storeRetriever } from '../retrieve/search.js';
import { ranksLexically } from '../store/spec.js';
import { storeStillHere } from '../store/still-here.js';
import { WarmIndex } from '../retrieve/warm/warm-index.js';
import { defaultHnswOptions } from '../retrieve/warm/exact-or-graph-vector-index.js';
import { BackgroundGraph } from '../indexing/background-graph.js';
import { dropUnreadableGraph } from '../retrieve/warm/usearch-graph.js';
import { storeInstanceOf } from '../retrieve/warm/warm-segment.js';
import { warmRetriever } from '../retrieve/warm/warm-retriever.js';
import { KnowledgeStores } from './knowledge.js';
import { normalizeNamespace } from './namespace.js';
import { recall as recallRecords, type RecallResult } from './recall.js';
import { storedWithoutVector } from './pending-vectors.js';
import { ContextWindow } from './context-window.js';
import { RecordStore } from './record-store.js';
import { mergeDuplicates } from './dedupe.js';
import { checkFields, checkMetadata, checkRecordFields, interactionRecordInput, toMemoryInput, turnRecordInput, type RecordInput } from './record-input.js';
import { idConflict, keepVersion } from './integrity.js';
import { checkId, checkSize, searchableText } from './records.js';
import { checkTime } from './time-range.js';
import { conversationHistory } from './history.js';
import { checkMemoryFilter, checkRecallOptions } from './check-memory-options.js';
import { checkText } from '../errors/check-types.js';
import { isAbort, requireText, safeJson, toRecord, type AddOptions, type InteractionLog, type MemoryContext } from './inputs.js';
import type { MemoryCore } from './memory-core.js';
import type { HistoryOptions, HistoryResult, InteractionInput, InteractionOutcome, MemoryFilter, MemoryHit, MemoryInput, MemoryRecord, RecallOptions, TurnInput } from './spec.js';
import { MAX_RECALL_TOP_K } from './spec.js';
import { exportRecords, importRecords, type ImportOptions, type ImportSummary, type MemoryExport } from './transfer.js';

export type { AddOptions, InteractionLog, MemoryContext } from './inputs.js';
export { conversationNamespace } from './inputs.js';

const DAY_MS = 86_400_000;

/**
 * Agent memory: namespaced records (turns, interactions, knowledge, notes) persisted in
 * their own store and recalled by BM25 + vector + recency.
 */
export class Memory implements MemoryCore {
  readonly records: RecordStore;
  readonly knowledge: KnowledgeStores;
  private warm: WarmIndex | undefined;
  /** The vector graph being built on a worker thread (BackgroundGraph), if any. */
  private graphBuild: BackgroundGraph | undefined;
  private graphBuildFailed = false;
  private readonly contextWindow: ContextWindow;

  constructor(private readonly context: MemoryContext) {
    this.records = new RecordStore(context.store, context.model, context.modelUnavailable);
    this.knowledge = new KnowledgeStores(this, context.config, context.readSource);
    this.contextWindow = new ContextWindow(context.config.contextWindow, context.store, this.records);
  }

  /** Adds one record; a note or knowledge record near-identical to one in its namespace is merged into it. */
  async add(input: MemoryInput, options: AddOptions = {}): Promise<MemoryRecord> {
    return (await this.addMany([input], options))[0] as MemoryRecord;
  }

  /**
   * Validates every input first, then writes; nothing is written when any input is bad.
   * An id given by the caller must be new to the store (MEMORY_ID_CONFLICT otherwise,
   * whatever the namespace): records change only through `update`.
   */
  async addMany(inputs: readonly MemoryInput[], options: AddOptions = {}): Promise<MemoryRecord[]> {
    const now = Date.now();
    const records = inputs.map((input, index) => toRecord(input, now, index));
    for (const record of records) checkRecordFields(record);
    const seen = new Map<string, string>();
    for (const record of records) {
      const earlier = seen.get(record.id);
      if (earlier !== undefined) throw new LociError('INVALID_ARGUMENT', `Record id ${record.id} appears twice (namespaces ${earlier} and ${record.namespace}); ids are unique per store.`);
      seen.set(record.id, record.namespace);
    }
    const chosen = records.filter((_, index) => inputs[index]?.id !== undefined);
    const existing = chosen.length > 0 ? await this.records.namespacesOfMany(chosen.map((record) => record.id)) : new Map<string, string[]>();
    for (const record of chosen) {
      const holders = (existing.get(record.id) ?? []).filter((namespace) => !(options.replace && namespace === record.namespace));
      if (holders.length > 0) throw idConflict(record.id, holders);
    }
    const deduper = { store: this.context.store, hasVectors: this.context.model !== undefined, dedupeSimilarity: this.context.config.dedupeSimilarity, recall: this.recall.bind(this) };
    const result = options.dedupe === false ? records : await mergeDuplicates(deduper, records, options.signal);
    await this.contextWindow.attach(result);
    const { withoutVectors, failure } = await this.records.write(result, options);
    for (const record of result) this.contextWindow.remember(record);
    for (const record of withoutVectors) record.warnings = [...(record.warnings ?? []), storedWithoutVector(failure)];
    // The embedder answered: records stored while it was down get their vectors now.
    if (!failure) await this.records.embedPending(options.signal ? { signal: options.signal } : {});
    return result;
  }

  /**
   * Adds a record in the one model every door accepts (HTTP, MCP and the CLI call this):
   * a note or knowledge by its text, an interaction or a turn by its flat or stored fields
   * (record-input.ts). Interactions and turns are events and are never merged.
   */
  async addRecord(input: RecordInput | unknown, options: AddOptions = {}): Promise<MemoryRecord> {
    const memoryInput = toMemoryInput(input);
    const event = memoryInput.kind === 'interaction' || memoryInput.kind === 'turn';
    return this.add(memoryInput, event ? { ...options, dedupe: false } : options);
  }

  /** Appends a dialog turn to its conversation. */
  async addTurn(turn: TurnInput): Promise<MemoryRecord> {
    return this.add(turnRecordInput(turn), { dedupe: false });
  }

  /** Logs one command execution with its outcome; its prompt is what recall matches. */
  async logInteraction(interaction: InteractionInput): Promise<MemoryRecord> {
    return this.add(interactionRecordInput(interaction), { dedupe: false });
  }

  /**
   * Runs one command and always logs it, even when it throws (the Unity seed's `finally`):
   * success when it returns, cancelled when aborted, error otherwise. The command may fill
   * in the response, feedback, outcome or metadata through the log it is given.
   */
  async withInteraction<T>(input: Omit<InteractionInput, 'outcome' | 'response'> & { response?: string }, run: (log: InteractionLog) => Promise<T> | T): Promise<T> {
    if (typeof run !== 'function')
      throw new LociError('INVALID_ARGUMENT', 'withInteraction(input, run) needs the command to run as a function: withInteraction({ namespace, prompt }, async (log) => …).');
    const log: InteractionLog = {};
    let outcome: InteractionOutcome = 'error';
    try {
      const result = await run(log);
      outcome = log.outcome ?? 'success';
      if (log.response === undefined && result !== undefined) log.response = typeof result === 'string' ? result : safeJson(result);
      return result;
    } catch (error) {
      outcome = log.outcome ?? (isAbort(error) ? 'cancelled' : 'error');
      log.feedback ??= error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      try {
        const logged = await this.logInteraction({
          ...input,
          outcome,
          ...(log.response !== undefined || input.response !== undefined ? { response: log.response ?? input.response } : {}),
          ...(log.feedback !== undefined || input.feedback !== undefined ? { feedback: log.feedback ?? input.feedback } : {}),
          ...(log.multiStep !== undefined || input.multiStep !== undefined ? { multiStep: log.multiStep ?? input.multiStep } : {}),
          ...(log.metadata || input.metadata ? { metadata: { ...input.metadata, ...log.metadata } } : {}),
        } as InteractionInput);
        if (logged.warnings) log.warnings = [...(log.warnings ?? []), ...logged.warnings];
      } catch (logError) {
        // The command's own result or error matters more: a logging failure never replaces it, it is told in log.warnings.
        log.warnings = [...(log.warnings ?? []), `The interaction was not logged: ${logError instanceof Error ? logError.message : String(logError)}`];
      }
    }
  }

  /** Most relevant records for a query (BM25 + vector + recency), scoped to namespaces. */
  async recall(query: string, options: RecallOptions = {}): Promise<MemoryHit[]> {
    return (await this.recallResponse(query, options)).hits;
  }

  /**
   * recall, with what the caller should know: when the embedder fails, recall answers by its
   * lexical signals and says so (`degraded: ['vector']` and a warning) instead of failing.
   */
  async recallResponse(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    checkText(query, 'recall query');
    checkRecallOptions(options);
    // The bounds every door states (config memory.topK, the HTTP schema): a library or CLI caller gets them too.
    if (options.topK !== undefined && !(Number.isInteger(options.topK) && options.topK >= 1 && options.topK <= MAX_RECALL_TOP_K)) {
      throw new LociError('INVALID_ARGUMENT', `topK must be a whole number from 1 to ${MAX_RECALL_TOP_K}; got ${options.topK}.`);
    }
    if (options.minSimilarity !== undefined && !(options.minSimilarity >= -1 && options.minSimilarity <= 1)) {
      throw new LociError('INVALID_ARGUMENT', `minSimilarity is a cosine, from -1 to 1; got ${options.minSimilarity}.`);
    }
    // The times a record can have are the times a window can name (a since of 9e15 found nothing, silently).
    if (options.since !== undefined) checkTime(options.since, 'since');
    if (options.until !== undefined) checkTime(options.until, 'until');
    // A namespace with no records yet answers an empty list (a new session's first recall); only malformed names fail.
    const result = await recallRecords(
      {
        lookup: (paths) => this.records.byPaths(paths),
        retriever: await this.retriever(),
        model: this.context.model,
        ...(this.context.modelUnavailable ? { modelUnavailable: this.context.modelUnavailable } : {}),
        weights: this.context.config.weights,
        recencyHalfLifeMs: this.context.config.recencyHalfLifeDays * DAY_MS,
      },
      query,
      { topK: this.context.config.topK, ...options, ...(options.namespaces ? { namespaces: options.namespaces.map(normalizeNamespace) } : {}) },
    );
    // The embedder answered the query: records stored while it was down get their vectors now.
    if (this.context.model && options.mode !== 'lexical' && !result.degraded) {
      const pending = await this.records.embedPending(options.signal ? { signal: options.signal } : {});
      if (pending.failure) result.warnings.push(`${pending.pending} record(s) stored without vectors could not be embedded yet: ${pending.failure.message}`);
    }
    return result;
  }

  /**
   * The turns of a conversation that fit a token budget: the latest ones first, then older
   * turns relevant to the query (see history.ts).
   */
  history(options: HistoryOptions): Promise<HistoryResult> {
    return conversationHistory(this, options);
  }

  /**
   * A record by id, within a namespace when given, else wherever it is. Stores written
   * before ids were checked may hold one id in several namespaces: then the namespace is
   * required (MEMORY_ID_CONFLICT names them).
   */
  /** A record by id (in `namespace` or one nested under it); an expired one is gone, as for list and recall. */
  async get(id: string, namespace?: string): Promise<MemoryRecord | undefined> {
    const record = await this.lookup(id, namespace);
    return record?.expiresAt !== undefined && record.expiresAt <= Date.now() ? undefined : record;
  }

  /** get, expired records included (update may give one a new expiry). */
  private async lookup(id: string, namespace?: string): Promise<MemoryRecord | undefined> {
    checkId(id);
    let holders: string[];
    if (namespace) {
      // The namespace and those under it, as list, recall and forget read it.
      const scope = normalizeNamespace(namespace);
      const exact = await this.records.get(scope, id);
      if (exact) return exact;
      holders = (await this.records.namespacesOf(id)).filter((holder) => holder.startsWith(`${scope}/`));
    } else holders = await this.records.namespacesOf(id);
    if (holders.length > 1) {
      throw idConflict(id, holders, `Memory id ${id} is in ${holders.length} namespaces (${holders.join(', ')}); say which one.`, 'Pass the namespace (HTTP ?namespace=…, CLI --namespace).');
    }
    return holders[0] === undefined ? undefined : this.records.get(holders[0], id);
  }

  /**
   * Changes a record's text, metadata, fields or expiry; it is re-indexed and re-embedded if
   * its text changed. A replaced text is kept in `versions` (see MemoryRecord.versions).
   */
  async update(id: string, patch: { namespace?: string; text?: string; metadata?: Record<string, unknown>; fields?: MemoryRecord['fields']; ttlMs?: number | null }): Promise<MemoryRecord> {
    // `namespace` only says where the record is (a record never moves): a patch of nothing else changes nothing.
    if (patch.text === undefined && patch.fields === undefined && patch.metadata === undefined && patch.ttlMs === undefined) {
      throw new LociError('INVALID_ARGUMENT', 'Nothing to update: give a new text, fields, metadata or ttlMs (namespace only says which record; records do not move).', {
        hint: 'To move a record, add it to the other namespace and forget this one.',
      });
    }
    const existing = await this.lookup(id, patch.namespace);
    if (!existing) throw new LociError('RECORD_NOT_FOUND', `No memory record with id ${id}${patch.namespace ? ` in namespace ${patch.namespace}` : ''}.`);
    const now = Date.now();
    const { warnings: _repaired, ...kept } = existing;
    const updated: MemoryRecord = { ...kept, updatedAt: now };
    if (patch.text !== undefined) updated.text = requireText(patch.text, 'text');
    if (patch.fields !== undefined) updated.fields = checkFields(existing.kind, patch.fields);
    if (patch.metadata !== undefined) updated.metadata = { ...existing.metadata, ...checkMetadata(patch.metadata) };
    if (patch.ttlMs === null) delete updated.expiresAt;
    else if (patch.ttlMs !== undefined) {
      if (!(patch.ttlMs > 0)) throw new LociError('INVALID_ARGUMENT', `ttlMs must be positive; got ${patch.ttlMs}.`);
      updated.expiresAt = checkTime(now + patch.ttlMs, 'now + ttlMs');
    }
    if (updated.kind === 'turn' || updated.kind === 'interaction') updated.text = searchableText(updated.kind, updated.text, updated.fields);
    checkSize(updated);
    if (updated.text !== existing.text) updated.versions = keepVersion(existing, now);
    await this.records.write([updated]);
    return updated;
  }

  /** Deletes records matching the filter (ids, namespaces, kinds, age, outcome); returns how many. */
  async forget(filter: MemoryFilter & { all?: boolean }): Promise<number> {
    checkMemoryFilter(filter);
    const restricts = Boolean(filter.ids?.length || filter.namespaces?.length || filter.kinds?.length || filter.before !== undefined || filter.outcome);
    if (!restricts && !filter.all) {
      throw new LociError('INVALID_ARGUMENT', 'forget needs a filter (ids, namespaces, kinds, before or outcome).', { hint: 'Pass all: true (CLI: --all) to forget every record.' });
    }
    filter.namespaces?.forEach((namespace) => normalizeNamespace(namespace));
    const doomed = await this.records.list({ ...filter, includeExpired: true });
    await this.records.delete(doomed);
    return doomed.length;
  }

  async list(filter: MemoryFilter & { limit?: number; offset?: number } = {}): Promise<MemoryRecord[]> {
    checkMemoryFilter(filter);
    filter.namespaces?.forEach((namespace) => normalizeNamespace(namespace));
    const all = await this.records.list(filter);
    const offset = filter.offset ?? 0;
    return all.slice(offset, filter.limit !== undefined ? offset + filter.limit : undefined);
  }

  /** Every namespace that holds records, with its record count. */
  async namespaces(): Promise<Array<{ namespace: string; records: number }>> {
    const counts = new Map<string, number>();
    for (const entry of await this.context.store.listCatalog()) {
      const namespace = entry.path.slice(0, entry.path.lastIndexOf('/#'));
      counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
    }
    return [...counts].map(([namespace, records]) => ({ namespace, records })).sort((a, b) => (a.namespace < b.namespace ? -1 : 1));
  }

  /** Purges expired records (and, with maxAgeMs, records older than that); returns how many. */
  async gc(options: { maxAgeMs?: number; now?: number } = {}): Promise<number> {
    const now = options.now ?? Date.now();
    const all = await this.records.list({ includeExpired: true }, now);
    const doomed = all.filter((record) => (record.expiresAt !== undefined && record.expiresAt <= now) || (options.maxAgeMs !== undefined && now - record.time > options.maxAgeMs));
    await this.records.delete(doomed);
    return doomed.length;
  }

  async export(filter: MemoryFilter = {}): Promise<MemoryExport> {
    checkMemoryFilter(filter);
    filter.namespaces?.forEach((namespace) => normalizeNamespace(namespace));
    return exportRecords(this.records, await this.records.list(filter));
  }

  /** Imports a loci export, a Go agent vector store or a Unity memory log; validated whole before anything is written. */
  async import(data: unknown, options: ImportOptions = {}): Promise<ImportSummary> {
    return importRecords(this, data, options);
  }

  /** Saves the vector graph (if one was built and changed since loaded or saved) so the next process starts warm. */
  async persist(): Promise<void> {
    // Not over the files of a store that replaced this one (a server reopens it): they are that store's.
    if (this.warm && (await storeStillHere(this.context.store))) this.warm.saveGraph();
  }

  /** persist(), then lets go of what the recall index holds open (its segment file, its graph search thread); a later recall opens them again. */
  async close(): Promise<void> {
    try {
      await this.graphBuild?.stop();
      this.graphBuild = undefined;
      await this.persist();
    } finally {
      this.warm?.close();
      this.warm = undefined;
    }
  }

  private async retriever(): Promise<Retriever> {
    const embedderId = this.records.embedderId;
    // A one-shot process recalls from the segment file when there is one, else from a store
    // that ranks by itself (Postgres), else (SQLite) from the index rebuilt from term rows.
    const segment = this.context.segmentFile;
    const store = this.context.store;
    if (this.context.inMemory === false && !this.warm && ranksLexically(store) && !(segment && existsSync(segment))) return storeRetriever(store, embedderId, MEMORY_FIELD_WEIGHTS);
    // The graph is never built on this thread (at 40k records that blocked every caller for
    // seconds): a saved one is mapped; a long-lived process builds a missing one on a worker
    // thread meanwhile, and recall scans exactly until it is saved.
    this.warm ??= new WarmIndex(this.context.store, {
      weights: MEMORY_FIELD_WEIGHTS,
      embedderId,
      dimensions: this.context.model?.dimensions ?? 0,
      ...(this.context.graphFile ? { graphFile: this.context.graphFile } : {}),
      ...(segment ? { segmentFile: segment } : {}),
      buildGraph: false,
      ...(this.context.inMemory === false ? {} : { prefetch: true }),
    });
    const warm = this.warm;
    await warm.refresh();
    if (this.context.inMemory !== false) this.buildGraphInBackground(warm, await storeInstanceOf(this.context.store));
    return warmRetriever(warm, embedderId, { forRanker: false });
  }

  /** Starts the graph worker once recall holds enough vectors and no graph file exists (once per process if it fails). */
  private buildGraphInBackground(warm: WarmIndex, storeInstance: string | undefined): void {
    const graphFile = this.context.graphFile;
    const model = this.context.model;
    if (this.graphBuild || this.graphBuildFailed || !graphFile || !model || warm.usesVectorGraph || warm.size < defaultHnswOptions.threshold) return;
    if (!warm.lacksSavedGraph && existsSync(graphFile)) return; // a graph dropped while changes go on is read again from its file
    dropUnreadableGraph(graphFile, storeInstance); // a damaged file (or one saved for another store) would stop the rebuild for good
    const build = BackgroundGraph.forRun({ store: this.context.store, embedderId: this.records.embedderId, dimensions: model.dimensions, graphFile, chunksBefore: warm.size });
    if (!build) return;
    this.graphBuild = build;
    // The worker reads every vector, saves the file and stops; the next recall maps it.
    void build.finish().then((rows) => {
      if (rows === undefined) this.graphBuildFailed = true;
      if (this.graphBuild === build) this.graphBuild = undefined;
    });
  }
}

/**
 * Memory has no paths or symbols; the heading field carries titles, dates and context at
 * half the body's weight (measured on LoCoMo: same recall as 1.0, better nDCG).
 */
const MEMORY_FIELD_WEIGHTS = { path: 0, symbols: 1, heading: 0.5, body: 1 };
