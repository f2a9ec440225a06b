import { existsSync, rmSync } from 'node:fs';
import type { ScoredRow } from '../../store/spec.js';
import type { RowFilter } from '../../store/filter-match.js';
import type { VectorBase } from '../../store/segment-file.js';
import { FlatVectorIndex, type VectorRowMeta, type VectorSnapshot } from './vector-index.js';
import { addRows, applyChanges, createGraph, keepLiveRows, loadGraphFiles, loadUsearch } from './usearch-graph.js';
import { mapIdentified, normalized, savedGraphFit, writeGraphFiles, type UsearchIndex } from './usearch-graph.js';
import type { GraphSearchThread } from './graph-search-thread.js';
import { scoreCandidates, withRowsBeside, type GraphCandidates } from './graph-candidates.js';
import { identifySavedGraph, savedFilesIdentity, type MappedGraphFile } from './mapped-graph-file.js';
import { defaultHnswOptions, DRAINED_AT_MOST, graphCandidatesWanted, VIEW_DELTA, type HnswOptions } from './hnsw-options.js';
import { EXACT_WHILE_SETTLING, Settling } from './graph-settling.js';

export { defaultHnswOptions, type HnswOptions } from './hnsw-options.js';

/**
 * Exact search over the flat matrix, plus an HNSW graph (usearch) for unfiltered top-k
 * once the index is large. Filtered queries try the graph with oversampling and fall back
 * to an exact filtered scan when too few candidates pass, so filters never lose results.
 */
export class ExactOrGraphVectorIndex {
  private readonly flat: FlatVectorIndex;
  private graph: UsearchIndex | undefined;
  private readonly graphKeys = new Set<number>();
  /** The graph differs from its saved file (or has none). */
  private dirty = false;
  /** The graph is the saved file memory-mapped (read-only): changes sit beside it until viewDelta, then it is loaded. */
  private viewed = false;
  private viewedKeys = 0;
  /** The saved files (graph and key list, by identity) mapSavedGraph could not map: not tried again until either changes. */
  private unmappable: string | undefined;
  /** Saved files that could not be loaded where no graph is built: not read again until either changes. */
  private unloadable: string | undefined;
  /** Held rows the graph lacks, scored exactly beside its candidates: while mapped, rows changed since the file; in memory, rows drain() has not put in yet. */
  private extra = new Set<number>();
  /** In memory: rows gone whose nodes drain() has not removed yet (skipped among the graph's candidates, as a mapped graph's stale keys are). */
  private removed = new Set<number>();
  /** While mapped: keys of the graph whose rows are gone. */
  private stale = 0;
  /** While mapped: the file, as identified when mapped (another thread may search it). */
  private mappedFile: MappedGraphFile | undefined;
  /**
   * While mapped: the file is identified and its key list checked, but not mapped on this thread
   * yet. usearch maps it at the first walk here (mapNow); a search the graph thread answers, as
   * a new process's first hybrid search does, never waits for it.
   */
  private viewPending = false;
  /** Moves at every row change: a search answered elsewhere meanwhile is done again here. */
  private changes = 0;
  /** A mapped graph dropped when its changes passed its bounds: searches are exact until ensureGraph makes one again. */
  private settling: Settling | undefined;
  /** While mapped: savedFilesIdentity as the file was mapped. */
  private mappedIdentity: string | undefined;

  constructor(
    readonly dimensions: number,
    private readonly options: HnswOptions = defaultHnswOptions,
  ) {
    this.flat = new FlatVectorIndex(dimensions);
  }

  get size(): number {
    return this.flat.size;
  }

  private get viewDelta(): number {
    return this.options.viewDelta ?? VIEW_DELTA;
  }
  /** Gone rows a mapped graph keeps skipping before it is loaded. */
  private get staleDelta(): number {
    return Math.max(1, this.viewDelta >>> 3);
  }

  /** Reads up to `bytes` more of a restored matrix in the background, or adopts one read elsewhere (FlatVectorIndex.prefetchMatrix). */
  prefetchMatrix(bytes: number | Float32Array): boolean {
    return this.flat.prefetchMatrix(bytes);
  }

  get usesGraph(): boolean {
    return this.graph !== undefined;
  }

  /** Searches scan exactly though the index wants a graph: the saved one was refused here (damaged), or a process that builds none has none to read. */
  get lacksSavedGraph(): boolean {
    return !this.graph && !this.settling && this.options.file !== undefined && this.flat.size >= this.options.threshold && (this.unmappable !== undefined || this.options.build === false);
  }
  /** Live rows the graph search covers (a mapped graph's own and those beside it). */
  private get graphSize(): number {
    return this.viewed ? this.viewedKeys - this.stale + this.extra.size : this.graphKeys.size + this.extra.size;
  }

  /** Nodes of gone rows the graph still holds (among its candidates, skipped). */
  private get gone(): number {
    return this.viewed ? this.stale : this.removed.size;
  }

  /** The graph is the saved file, memory-mapped (not read into memory). */
  get mapped(): boolean {
    return this.viewed;
  }

  snapshot(metaId: (meta: VectorRowMeta) => number): Omit<VectorSnapshot, 'matrix'> & { matrix: Float32Array } {
    return this.flat.snapshot(metaId);
  }

  /** Adopts saved vectors into this empty index; the graph is loaded or built by ensureGraph() as usual. */
  restore(snapshot: VectorBase): void {
    this.flat.restore(snapshot);
  }

  add(rowId: number, vector: Float32Array, meta: VectorRowMeta): void {
    this.changes++;
    const replaced = this.flat.has(rowId);
    this.flat.add(rowId, vector, meta);
    if (this.viewed) {
      // A held row given a new vector: its key in the graph is stale, the row is scored beside it.
      if (replaced && !this.extra.has(rowId)) this.stale++;
      this.extra.add(rowId);
      if (this.extra.size > this.viewDelta || this.stale > this.staleDelta) this.overflow();
      return;
    }
    if (this.settling) return void this.settlingChange(rowId, replaced);
    // A held row given a new vector (or a row id used again): its node moves (graph distances choose which candidates are scored).
    if (this.graph && ((replaced && this.graphKeys.delete(rowId)) || this.removed.delete(rowId))) this.graph.remove(BigInt(rowId));
    // Put in the graph by drain(), not here: a catch-up of thousands of rows from another process's run held searches for seconds.
    if (this.graph && !this.graphKeys.has(rowId)) {
      this.extra.add(rowId);
      this.dirty = true;
    }
  }

  /** Row changes an in-memory graph has not taken yet (drain()). */
  get undrained(): number {
    return this.viewed ? 0 : this.extra.size + this.removed.size;
  }

  /** Applies row changes to the in-memory graph for up to `budgetMs` (removals, then additions); true while some are left. */
  drain(budgetMs: number): boolean {
    if (!this.graph || this.viewed) return false;
    return applyChanges(this.graph, { removed: this.removed, added: this.extra, keys: this.graphKeys }, (rowId) => this.flat.vectorOf(rowId) as Float32Array, budgetMs);
  }

  remove(rowId: number): void {
    this.changes++;
    if (this.viewed) {
      const held = this.flat.has(rowId);
      this.flat.remove(rowId);
      if (held && !this.extra.delete(rowId) && ++this.stale > this.staleDelta) this.overflow();
      return;
    }
    const held = this.flat.has(rowId);
    this.flat.remove(rowId);
    if (this.settling) return void (held && this.settlingChange(rowId, false));
    if (this.extra.delete(rowId)) return;
    if (this.graph && this.graphKeys.delete(rowId)) {
      this.removed.add(rowId);
      this.dirty = true;
    }
  }

  /** Builds (or loads and reconciles) the graph once the index is big enough; after overflow(), maps a file saved since that fits, or reads one once changes pause (or `now`). */
  ensureGraph(mapSaved = true, moved?: ReadonlySet<number>, now = false): void {
    if (this.graph) return;
    if (this.flat.size < this.options.threshold) return void (this.settling = undefined);
    const file = this.options.file;
    const settling = this.settling;
    if (settling) {
      if (settling.tryNewFile() && this.mapFile(false)) return void (this.settling = undefined); // one that does not fit yet is tried again after changes
      if (!now && !settling.quiet) return;
      this.settling = undefined;
      // Only a file saved since is trusted as it stands; the dropped one is read and its moved rows' nodes made anew.
      return void this.ensureGraph(settling.fileChanged, settling.moved);
    }
    if (this.options.build === false && !(file && existsSync(file) && savedFilesIdentity(file) !== this.unloadable)) return;
    const module = loadUsearch();
    if (!module) return;
    const create = () => createGraph(module, this.dimensions, this.options);
    const view = create();
    // Not files mapNow found it cannot map (read into memory below, or refused and rebuilt).
    if (mapSaved && file && savedFilesIdentity(file) !== this.unmappable && this.viewSaved(view)) {
      this.graph = view;
      return;
    }
    const live = new Set(this.flat.rowIds());
    this.graphKeys.clear();
    let graph = create();
    const saved = file ? loadGraphFiles(graph, file, this.options.storeInstance?.()) : undefined;
    // A one-shot process builds none (minutes at 1M rows): it searches exactly until a saved graph reads whole.
    if (!saved && file && this.options.build === false) return void (this.unloadable = savedFilesIdentity(file));
    // A file refused after usearch read it (its key list does not match) left its nodes in that graph.
    if (!saved && file) graph = create();
    this.dirty = saved === undefined || keepLiveRows(graph, saved, live, moved, this.graphKeys);
    const missing = [...live].filter((rowId) => !this.graphKeys.has(rowId));
    this.dirty ||= missing.length > 0;
    // Rows a saved graph lacks are scored exactly until drain() puts them in (read after changes: as many as an exact scan takes); a graph built anew takes all at once.
    if (saved && missing.length <= (moved ? Math.max(DRAINED_AT_MOST, this.exactWhileSettling) : DRAINED_AT_MOST)) this.extra = new Set(missing);
    else addRows(graph, missing, (rowId) => this.flat.vectorOf(rowId) as Float32Array, this.dimensions, this.options.addThreads ?? 0, this.graphKeys);
    this.graph = graph;
  }

  search(query: Float32Array, limit: number, accept?: RowFilter): ScoredRow[] {
    const plan = this.plan(limit, accept);
    if (!plan || !this.graph) return this.flat.search(query, limit, accept);
    const unit = normalized(query);
    return this.walkHere(query, limit, accept, unit, plan.k);
  }

  /** The graph walked on this thread (a plan was made, so there is a graph); an exact scan when it cannot be mapped here. */
  private walkHere(query: Float32Array, limit: number, accept: RowFilter | undefined, unit: Float32Array, k: number): ScoredRow[] {
    if (this.viewPending && !this.mapNow()) return this.flat.search(query, limit, accept);
    return this.finish(query, limit, accept, unit, (this.graph as UsearchIndex).search(unit, k, 0));
  }

  /**
   * Maps the identified file on this thread (its first walk here). false: the graph is dropped
   * (searches are exact until a catch-up reads or builds one): the file was replaced meanwhile
   * (identified afresh then), or cannot be mapped (not tried again until it changes).
   */
  private mapNow(): boolean {
    const file = this.mappedFile as MappedGraphFile;
    try {
      const outcome = mapIdentified(this.graph as UsearchIndex, file);
      if (outcome === 'mapped') {
        this.viewPending = false;
        return true;
      }
      // Damaged: left for the next save to replace (loadGraphFiles); replaced: identified afresh at the next catch-up.
      if (outcome === 'damaged') this.unmappable = savedFilesIdentity(file.path);
    } catch {
      // gone, or not a graph usearch reads
      this.unmappable = savedFilesIdentity(file.path);
    }
    this.forgetGraph();
    return false;
  }

  /**
   * search(), the graph's walk done on `thread` when the graph is a mapped file: the same file,
   * asked the same, proposes the same candidates, scored here as search() scores them. Any row
   * change meanwhile, or no answer from the thread: it is search() here. undefined: this index
   * is no longer `current()` (its holder replaced it meanwhile), so the answer is not its to give.
   */
  async searchOn(thread: GraphSearchThread, query: Float32Array, limit: number, accept?: RowFilter, current: () => boolean = () => true): Promise<ScoredRow[] | undefined> {
    const file = this.viewed ? this.mappedFile : undefined;
    if (!file) thread.release(); // nothing mapped to walk there: its worker need not hold the file it mapped
    if (!file) return this.search(query, limit, accept);
    const plan = this.plan(limit, accept);
    if (!plan) return this.flat.search(query, limit, accept); // an exact scan, as search() would do
    const changes = this.changes;
    const unit = normalized(query);
    const asked = thread.search(file, unit, plan.k);
    // Declined at once (not started or ready, busy, refused): walked here, the plan and query as made.
    if (!asked) return this.walkHere(query, limit, accept, unit, plan.k);
    const found = await asked;
    if (!current()) return undefined;
    if (!found || changes !== this.changes) return this.search(query, limit, accept);
    return this.finish(query, limit, accept, unit, found);
  }

  /** How many candidates the graph is asked for; undefined: the search is an exact scan. */
  private plan(limit: number, accept: RowFilter | undefined): { k: number } | undefined {
    if (!this.graph || limit <= 0) return undefined;
    const k = graphCandidatesWanted(limit, this.graphSize, accept ? this.flat.acceptRate(accept) : undefined, this.gone);
    return k === undefined ? undefined : { k };
  }

  private finish(query: Float32Array, limit: number, accept: RowFilter | undefined, unit: Float32Array, found: GraphCandidates): ScoredRow[] {
    // The graph's 16-bit distances only choose candidates; each that can place is scored exactly (f32
    // cosine): scores match an exact scan, in the exact order of what the graph found.
    const fromGraph = scoreCandidates(this.flat, found, unit, accept, limit);
    const rows = withRowsBeside(this.flat, fromGraph, this.extra, unit, accept, limit);
    // Too few passed the filter, or gone rows took live ones' places (counted before the rows beside the graph): exact.
    if ((accept || this.gone > 0) && (rows.length < Math.min(limit, this.flat.size) || fromGraph.length < Math.min(limit, this.graphSize - this.extra.size)))
      return this.flat.search(query, limit, accept);
    // Paths of the rows kept only (a new process reads each from a block of the segment).
    for (const row of rows) row.path = this.flat.pathOf(row.rowId) ?? row.path;
    return rows;
  }

  /** Saves the graph and its key list (each via a rename) when they changed since loaded or saved; a no-op without a graph. */
  persist(): void {
    if (this.settling) this.ensureGraph(true, undefined, true); // changes done: made again, so the file saved holds them
    const file = this.options.file;
    if (!this.graph || !file || !this.dirty) return;
    while (this.drain(Number.POSITIVE_INFINITY));
    this.dirty = false;
    // A graph whose every key was removed is not saved (usearch cannot load one back): none is.
    if (this.graphKeys.size === 0) {
      rmSync(file, { force: true });
      rmSync(`${file}.keys`, { force: true });
      return;
    }
    writeGraphFiles(this.graph, Int32Array.from(this.graphKeys), file, this.options.storeInstance?.());
  }

  /**
   * After persist(): the file holds this graph now, so it is memory-mapped in place of the copy
   * in memory (a long-lived process: the memory goes back to the page cache, the graph search
   * thread can walk it again, and later changes sit beside it instead of rewriting the whole
   * file at every save). false: nothing to map (no graph, unsaved changes, already mapped, or
   * the file could not be mapped: the graph in memory stays).
   */
  mapSavedGraph(): boolean {
    if (!this.graph || this.viewed || this.dirty || !this.options.file) return false;
    return this.mapFile(true);
  }

  /** Maps the saved file in place of the graph held (if any) when it fits the rows. */
  private mapFile(markUnmappable: boolean): boolean {
    const saved = this.options.file ? savedFilesIdentity(this.options.file) : undefined;
    if (saved === undefined || saved === this.unmappable) return false;
    const module = loadUsearch();
    if (!module) return false;
    const view = createGraph(module, this.dimensions, this.options);
    if (!this.viewSaved(view)) {
      // Every save would try again (and read the key list) for the same files: once until they change.
      if (markUnmappable) this.unmappable = saved;
      return false;
    }
    this.unmappable = undefined;
    this.changes++;
    this.graph = view;
    this.graphKeys.clear(); // while mapped, the graph's keys are the file's (see viewSaved)
    return true;
  }

  /** Whether persist() would write: the graph changed since it was loaded or saved (or one dropped is still to be made again). */
  get unsaved(): boolean {
    return (this.graph !== undefined && this.dirty) || this.settling !== undefined;
  }

  /** A mapped graph's changes passed its bounds: a small index drops it and scans exactly meanwhile (graph-settling.ts); a large one reads it now. */
  private overflow(): void {
    const file = this.options.file;
    if (!file || this.flat.size > this.exactWhileSettling) return void this.materialize();
    const beside = this.extra;
    const mapped = this.mappedIdentity;
    this.forgetGraph();
    this.settling = new Settling(file, mapped, beside, this.options.settleQuietMs);
  }

  private get exactWhileSettling(): number {
    return this.options.exactWhileSettling ?? EXACT_WHILE_SETTLING;
  }

  /** A row changed while settling: once the index outgrows exact scans, the graph is read now (what it lacks drained between searches). */
  private settlingChange(rowId: number, replaced: boolean): void {
    const settling = this.settling as Settling;
    settling.changed(rowId, replaced);
    if (this.flat.size > this.exactWhileSettling) this.ensureGraph(true, undefined, true);
  }

  /** A viewed graph takes its first change: the graph is loaded from its file and reconciled with the rows as they are now. */
  private materialize(): void {
    const beside = this.extra;
    this.forgetGraph();
    // Read into memory, not mapped again; rows beside the file that it holds were given new vectors here: their nodes are made anew.
    this.ensureGraph(false, beside);
  }

  private forgetGraph(): void {
    this.changes++;
    this.graph = undefined;
    this.viewed = false;
    this.viewPending = false;
    this.mappedFile = undefined;
    this.viewedKeys = 0;
    this.extra = new Set();
    this.removed = new Set();
    this.stale = 0;
    this.graphKeys.clear();
  }

  /** The saved graph file as mapping it would identify it now (the graph thread maps it while a new process opens the rest: prepare), or undefined. */
  savedGraphFile(): MappedGraphFile | undefined {
    return this.options.file && !this.graph ? identifySavedGraph(this.options.file, this.dimensions, this.options, this.options.storeInstance?.()) : undefined;
  }

  /**
   * When the saved graph holds the live rows but for a small delta, it is memory-mapped instead
   * of read: a new process answers from it at once, paging in only what searches touch.
   */
  private viewSaved(graph: UsearchIndex): boolean {
    const file = this.options.file;
    const identity = file ? savedFilesIdentity(file) : undefined; // before its key list is read: a file saved after that is another
    const fit = file && graph.view ? savedGraphFit(file, this.flat, this.viewDelta, this.staleDelta, { ...this.options, dimensions: this.dimensions }) : undefined;
    if (!fit) return false;
    // Mapped here at the first walk on this thread (mapNow), if the file is still this one then.
    this.mappedFile = fit.file;
    this.viewPending = true;
    this.extra = new Set(fit.extra);
    this.stale = fit.absent;
    // graphKeys stays empty while mapped: its keys are the file's, less `stale`, plus `extra`.
    this.viewedKeys = fit.file.keys;
    this.mappedIdentity = identity;
    this.viewed = true;
    this.dirty = false;
    return true;
  }
}
