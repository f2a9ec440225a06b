import { isLociError } from '../errors/index.js';
import { resolve } from 'node:path';
import { resolveConfig } from '../config/load.js';
import type { LociConfig } from '../config/schema.js';
import { registerBuiltInEmbedders } from '../embed/providers.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import type { IndexSummary } from '../indexing/events.js';
import type { DocumentSource } from '../indexing/index-documents.js';
import type { IndexJobSpec } from '../indexing/index-job.js';
import { jobSpecFor, pickRun, runJobInWorker } from './run-job.js';
import { GraphRepair } from './graph-repair.js';
import { checkText } from '../errors/check-types.js';
import { checkSearchOptions } from '../retrieve/check-search-options.js';
import { ResultNotes } from './stale.js';
import type { LociWatcher, WatchOptions } from './watch.js';
import { EngineModels } from './engine-models.js';
import { RELEASE_AFTER_CHUNKS, releaseFreedMemory } from './release-memory.js';
import { findSymbolDefinitions, type FindSymbolOptions } from '../retrieve/find-symbol.js';
import { checkQuery } from '../retrieve/query-limits.js';
import { searchIndex, storeRetriever, type Retriever } from '../retrieve/search.js';
import { WarmIndex } from '../retrieve/warm/warm-index.js';
import { warmRetriever } from '../retrieve/warm/warm-retriever.js';
import type { SearchOptions, SearchResponse } from '../retrieve/search-types.js';
import { describeLocation, MEMORY_DATABASE, openStore, resolveStoreLocation, storeFilePaths, type StoreLocation } from '../store/location.js';
import { hasSegment, indexCacheOptions } from './index-files.js';
import { acquireRunLease, type RunLeaseHolder } from './run-lease.js';
import { assertRootFolder } from '../sources/root-folder.js';
import { checkCreateOptions, checkedGcOptions, checkedStatusOptions, checkPathsInside, checkRun, EngineLifecycle, engineClosed } from './lifecycle.js';
import { ranksLexically, type Store, type StoreUpgradeListener } from '../store/spec.js';
import type { Memory } from '../memory/memory.js';
import { noteFailedRun } from './failed-run.js';
import { engineSourceReader, type SafeReader } from './source-reader.js';
import type { IndexStatus } from './status-types.js';

import type { CreateLociOptions, GcSummary, Loci, RunOptions } from './engine-types.js';
import { storeStillHere } from '../store/still-here.js';
export type { CreateLociOptions, GcSummary, Loci, RunOptions } from './engine-types.js';
export type { LociWatcher, WatchEvent, WatchOptions } from './watch.js';

registerBuiltInEmbedders();

/** Watcher batches of at least this many paths are indexed on the worker thread. */
const WORKER_MIN_PATHS = 64;

export function createLoci(options: CreateLociOptions): Loci {
  checkCreateOptions(options);
  const root = resolve(options.root);
  const config = resolveConfig([{ origin: 'createLoci options', values: (options.config ?? {}) as Record<string, unknown> }]);
  const location = resolveStoreLocation(root, options.store ?? config.store);
  return new LociEngine(root, config, location, options);
}

class LociEngine implements Loci {
  readonly storeLocation: string;
  private store: Store | undefined;
  private storeWritable = false;
  /** Handles a search opened, replaced by one that may create and write; closed with the engine. */
  private readonly retiredStores: Store[] = [];
  /** Warm indexes of embedders the store no longer uses, closed with the engine at the latest (weakly held: never kept alive here). */
  private readonly retiredWarm = new Set<WeakRef<WarmIndex>>();
  private readonly graphRepair = new GraphRepair();
  private readonly models: EngineModels;
  private warm: WarmIndex | undefined;
  private memoryHandle: Promise<{ memory: Memory; store: Store }> | undefined;
  private activeRuns = 0;
  private readonly life = new EngineLifecycle();
  private readonly notes: ResultNotes;

  constructor(
    readonly root: string,
    readonly config: LociConfig,
    private readonly location: StoreLocation,
    private readonly options: CreateLociOptions,
  ) {
    this.storeLocation = describeLocation(location);
    this.models = new EngineModels(options.embedder, config, options.env ?? {});
    this.notes = new ResultNotes(root, () => this.models.requestedNote());
  }

  index(runOptions: RunOptions = {}): Promise<IndexSummary> {
    return this.running(
      runOptions,
      (options) =>
        noteFailedRun(
          () => this.openStore(true),
          this.options.embedder ?? this.config.embedder,
          () => this.indexFolder(options),
        ),
      () => assertRootFolder(this.root),
    );
  }

  indexPaths(paths: readonly string[], runOptions: RunOptions = {}): Promise<IndexSummary> {
    const check = () => checkPathsInside(this.root, paths);
    return this.running(runOptions, (options) => this.indexSomePaths(paths, options), check);
  }

  /**
   * One run at a time per store, across processes (run-lease.ts): a second one waits, then
   * finds the work done. `check`: what the run needs, before it waits (the root, never created).
   */
  private running(runOptions: RunOptions, work: (options: RunOptions) => Promise<IndexSummary>, check?: () => void): Promise<IndexSummary> {
    return this.life.track(async () => {
      checkRun(runOptions, check);
      return this.leased({ ...runOptions, signal: this.life.signal(runOptions.signal) }, work);
    });
  }

  private async leased(runOptions: RunOptions, work: (options: RunOptions) => Promise<IndexSummary>): Promise<IndexSummary> {
    this.activeRuns++;
    try {
      await this.graphRepair.stop(); // the run builds a missing graph itself (two workers would write one file)
      const onProgress = runOptions.onProgress;
      const lease = await acquireRunLease(await this.openStore(true, onProgress ? (upgrade) => onProgress({ type: 'store-upgrade', ...upgrade }) : undefined), {
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
        ...(onProgress ? { onWait: (holder: RunLeaseHolder) => onProgress({ type: 'run-waiting', ...holder }) } : {}),
      });
      let summary: IndexSummary;
      try {
        summary = await work(runOptions);
      } finally {
        // A store that cannot be written now frees the lease anyway: this pid's exit, or its age.
        await lease.release().catch(() => undefined);
      }
      if (summary.chunks.written >= RELEASE_AFTER_CHUNKS) releaseFreedMemory(); // a big run's buffers, kept by the C allocator
      return summary;
    } finally {
      this.activeRuns--;
    }
  }

  private async indexFolder(runOptions: RunOptions): Promise<IndexSummary> {
    const store = await this.openStore(true);
    const { model, spec } = await this.models.forIndexing(store);
    const mode = runOptions.progressive ?? this.config.indexing.progressive;
    const progressive = model !== undefined && (mode === 'always' || (mode === 'auto' && model.provider !== 'static'));
    return this.runJob(this.jobSpec({ progressive, spec }), store, model, runOptions, true);
  }

  private async indexSomePaths(paths: readonly string[], runOptions: RunOptions): Promise<IndexSummary> {
    const store = await this.openStore(true);
    const { model, spec } = await this.models.forIndexing(store);
    // A few saved files are quicker in-process than a worker's start; a checkout's worth is not.
    return this.runJob(this.jobSpec({ progressive: false, spec, paths: [...paths] }), store, model, runOptions, paths.length >= WORKER_MIN_PATHS);
  }

  /**
   * One job, two transports: the indexing worker when it can run, else in-process. Indexing, the worker, the
   * watcher and memory are loaded when first used: a one-shot search does not pay for their modules.
   */
  private async runJob(job: IndexJobSpec, store: Store, model: EmbeddingModel | undefined, runOptions: RunOptions, workerWorthIt: boolean): Promise<IndexSummary> {
    const { workerAvailable } = await import('../indexing/worker/run-in-worker.js');
    if (workerWorthIt && this.canUseWorker(workerAvailable)) {
      return runJobInWorker(job, runOptions, { location: this.location, embedderId: this.models.currentId, env: this.options.env ?? {}, indexing: this.config.indexing });
    }
    const { runIndexJob } = await import('../indexing/index-job.js');
    // The engine's own warm index, when it has one, is brought up to date and saved; else the
    // job saves through a transient one (an engine that only indexes holds no index in memory).
    const warm = this.warm;
    return runIndexJob(job, {
      store,
      model,
      ...pickRun(runOptions),
      ...(warm
        ? { warmIndex: async (embedderId: string, dimensions: number) => (warm.options.embedderId === embedderId && this.warm === warm ? warm : this.warmIndexFor(store, embedderId, dimensions)) }
        : {}),
    });
  }

  private jobSpec(options: { progressive: boolean; spec: string; paths?: string[] }): IndexJobSpec {
    return jobSpecFor({ root: this.root, config: this.config, location: this.location, embedderId: this.models.currentId, keepsNothing: this.options.inMemory === false }, options);
  }

  /** The worker rebuilds the embedder from its spec, so a model object passed in keeps indexing in-process. */
  private canUseWorker(workerAvailable: () => boolean): boolean {
    return this.config.indexing.worker && typeof this.options.embedder !== 'object' && this.location.kind !== 'instance' && workerAvailable();
  }

  async watch(watchOptions: WatchOptions = {}): Promise<LociWatcher> {
    this.life.assertOpen();
    const { watchEngine } = await import('./watch.js');
    return this.life.own(await watchEngine(this, storeFilePaths(this.location, this.root, MEMORY_DATABASE), watchOptions));
  }

  indexDocuments(documents: DocumentSource, runOptions: RunOptions & { prune?: boolean } = {}): Promise<IndexSummary> {
    return this.running(runOptions, (options) => this.indexSomeDocuments(documents, options));
  }

  private async indexSomeDocuments(documents: DocumentSource, runOptions: RunOptions & { prune?: boolean }): Promise<IndexSummary> {
    const store = await this.openStore(true);
    const { model } = await this.models.forIndexing(store);
    const { runDocuments } = await import('./documents-run.js');
    const embedderId = model ? embedderIdOf(model) : 'none';
    return runDocuments({
      documents,
      store,
      model,
      config: this.config,
      cacheFiles: this.cacheFiles(embedderId),
      warm: this.warm?.options.embedderId === embedderId ? this.warm : undefined,
      runOptions,
    });
  }

  search(query: string, searchOptions: SearchOptions = {}): Promise<SearchResponse> {
    return this.life.track(async () => {
      checkText(query, 'search query');
      checkSearchOptions(searchOptions);
      return this.searching(query, searchOptions);
    });
  }

  private async searching(query: string, searchOptions: SearchOptions): Promise<SearchResponse> {
    checkQuery(query); // before the store and the model are opened: an oversized query costs nothing
    const store = await this.openStore(false);
    const meta = await store.getMeta();
    // A lexical search never sets up, let alone calls, the embedder; a failing one degrades a hybrid search to lexical.
    const lexical = (searchOptions.mode ?? this.config.search.mode) === 'lexical';
    const { model, unavailable } = lexical ? { model: undefined, unavailable: undefined } : await this.models.orFailure(store, meta.embedderId);
    const retriever = await this.retriever(store, meta.embedderId, meta.dimensions, !lexical);
    const response = await searchIndex(
      { store, root: this.root, retriever, model, embedderId: meta.embedderId, defaults: this.config.search, ...(unavailable ? { modelUnavailable: unavailable } : {}) },
      query,
      searchOptions,
    );
    await this.notes.apply(store, response);
    return response;
  }

  async ready(options: { signal?: AbortSignal } = {}): Promise<void> {
    const store = await this.openStore(false).catch((error: unknown) => {
      if (isLociError(error) && error.code === 'INDEX_NOT_FOUND') return undefined;
      throw error;
    });
    if (!store || options.signal?.aborted) return;
    const meta = await store.getMeta();
    const lexical = this.config.search.mode === 'lexical';
    if (!lexical) await this.models.orFailure(store, meta.embedderId);
    if (options.signal?.aborted) return;
    await this.retriever(store, meta.embedderId, meta.dimensions, !lexical);
  }

  findSymbol(name: string, options: FindSymbolOptions = {}): Promise<SearchResponse> {
    return this.life.track(async () => {
      checkText(name, 'symbol name');
      checkSearchOptions(options);
      const store = await this.openStore(false);
      const response = await findSymbolDefinitions(store, name, { ...options, root: this.root });
      await this.notes.apply(store, response);
      return response;
    });
  }

  private async retriever(store: Store, embedderId: string, dimensions: number, vectors = true): Promise<Retriever> {
    const weights = this.config.search.fieldWeights;
    // A one-shot process searches the segment file if any (the same index and ranking as a long-lived one); else a store
    // that ranks by itself (Postgres) is searched directly; SQLite's index is rebuilt from its term rows and saved at close.
    if (this.options.inMemory === false && ranksLexically(store) && !(this.warm?.options.embedderId === embedderId || hasSegment(this.location, embedderId))) {
      return storeRetriever(store, embedderId, weights);
    }
    const warm = await this.warmIndexFor(store, embedderId, dimensions);
    if (vectors) await warm.prepareGraphThread(); // a lexical search leaves the graph file unread
    if (vectors && this.activeRuns === 0) await this.graphRepair.before(store, warm); // a run builds its own
    // While indexing, a search answers from what the warm index holds and catches up in the background (never waiting on the writer); otherwise it sees all committed before it.
    if (this.activeRuns > 0 && warm.size > 0) void warm.refresh().catch(() => undefined);
    else await warm.refresh();
    return warmRetriever(warm, embedderId, { forRanker: true });
  }

  async status(statusOptions: { checkChanges?: boolean; signal?: AbortSignal } = {}): Promise<IndexStatus> {
    return this.life.track(() => this.collectStatus({ ...checkedStatusOptions(statusOptions), signal: this.life.signal(statusOptions.signal) }));
  }

  private async collectStatus(statusOptions: { checkChanges?: boolean; signal: AbortSignal }): Promise<IndexStatus> {
    const store = await this.openStore(false);
    await store.quickCheck?.(); // status is where a damaged store must show, not pass as healthy
    const { collectStatus } = await import('./collect-status.js');
    const excludeAbsolutePaths = storeFilePaths(this.location, this.root, MEMORY_DATABASE);
    return collectStatus({
      root: this.root,
      store,
      location: this.location,
      config: this.config,
      excludeAbsolutePaths,
      checkChanges: statusOptions.checkChanges ?? true,
      signal: statusOptions.signal,
    });
  }

  async gc(options: { compact?: boolean } = {}): Promise<GcSummary> {
    const { collectGarbage } = await import('./collect-garbage.js');
    return collectGarbage(
      { location: this.location, maxUnreferencedVectors: this.config.cache.maxUnreferencedVectors, openStore: (create) => this.openStore(create), memory: () => this.memory() },
      checkedGcOptions(options),
    );
  }

  async files(): Promise<Array<{ path: string; size: number; language: string }>> {
    return (await (await this.openStore(false)).listCatalog()).map((entry) => ({ path: entry.path, size: entry.size, language: entry.language }));
  }

  async outline(): Promise<Array<{ path: string; symbols: Array<{ name: string; line: number }> }>> {
    return (await this.openStore(false)).listOutline();
  }

  async embedder(): Promise<EmbeddingModel | undefined> {
    const store = await this.openStore(false);
    return this.models.forSearch(store, (await store.getMeta()).embedderId);
  }

  memory(): Promise<Memory> {
    if (this.life.isClosed) return Promise.reject(engineClosed());
    this.memoryHandle ??= this.openMemory().catch((error: unknown) => {
      this.memoryHandle = undefined;
      throw error;
    });
    return this.memoryHandle.then((handle) => handle.memory);
  }

  private async openMemory(): Promise<{ memory: Memory; store: Store }> {
    const { openEngineMemory, openMemoryStore } = await import('./open-memory.js');
    return openEngineMemory({
      openStore: () => openMemoryStore(this.location),
      location: this.location,
      config: this.config.memory,
      inMemory: this.options.inMemory !== false,
      readSource: async (path, signal) => this.sourceReader().read(path, signal ? { signal } : {}),
      // A memory without vectors yet borrows the index's recorded size: no probe of a server that may be down.
      resolveModel: async (recordedEmbedderId) => (await this.models.requested(recordedEmbedderId !== 'none' ? recordedEmbedderId : await this.indexEmbedderId())).model,
    });
  }

  /** The embedder id the index recorded, if there is an index. */
  private async indexEmbedderId(): Promise<string | undefined> {
    try {
      return (await (await this.openStore(false)).getMeta()).embedderId;
    } catch {
      return undefined; // memory without an index
    }
  }

  sourceReader(options: { budgetBytes?: number } = {}): SafeReader {
    return engineSourceReader(this.root, this.config, this.location, options);
  }

  async close(): Promise<void> {
    if (!(await this.life.close())) return;
    const [store, warm] = [this.store, this.warm];
    this.store = undefined;
    this.warm = undefined;
    await this.graphRepair.stop();
    try {
      if (!store || (await storeStillHere(store))) warm?.saveGraph(); // for the next process (an unchanged graph is not rewritten); not over a new store's files
    } catch {
      // only a cache: the next process rebuilds it
    }
    warm?.close();
    for (const retired of this.retiredWarm) retired.deref()?.close();
    this.retiredWarm.clear();
    const memory = this.memoryHandle;
    this.memoryHandle = undefined;
    await store?.close();
    for (const retired of this.retiredStores.splice(0)) await retired.close();
    const handle = memory ? await memory.catch(() => undefined) : undefined;
    if (handle) {
      try {
        await handle.memory.close();
      } finally {
        await handle.store.close();
      }
    }
  }

  /**
   * Opens the store once; a search's open (which never creates a store) is replaced when indexing needs one that may.
   * The first handle stays open until close(): searches under way and the warm index read through it.
   */
  private async openStore(create: boolean, onUpgrade?: StoreUpgradeListener): Promise<Store> {
    this.life.assertOpen();
    if (this.store && (this.storeWritable || !create || this.location.kind === 'instance')) return this.store;
    const opened = await openStore(this.location, { create, onUpgrade: this.notes.upgrades(onUpgrade) });
    if (this.store && this.store !== opened) this.retiredStores.push(this.store);
    this.store = opened;
    this.storeWritable = create;
    return opened;
  }

  private async warmIndexFor(store: Store, embedderId: string, dimensions: number): Promise<WarmIndex> {
    if (!this.warm || this.warm.options.embedderId !== embedderId) {
      // The store's embedder changed (another process re-indexed): the old index is retired (WarmIndex.retire).
      if (this.warm) this.retiredWarm.add(new WeakRef(this.warm.retire()));
      this.warm = new WarmIndex(store, { weights: this.config.search.fieldWeights, embedderId, dimensions, ...this.cacheFiles(embedderId) });
    }
    return this.warm;
  }

  private cacheFiles(embedderId: string): ReturnType<typeof indexCacheOptions> {
    return indexCacheOptions(this.location, embedderId, this.options.inMemory === false);
  }
}
