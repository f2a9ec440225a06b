import { LociError } from '../../errors/index.js';
import type { ScoredRow, SearchFilter, Store, TermStatistics } from '../../store/spec.js';
import { compileFilter } from '../../store/filter-match.js';
import { LexicalIndex } from './lexical-index.js';
import { vectorIndexFor, type ExactOrGraphVectorIndex } from './vector-index-for.js';
import { readSegmentHeader, SegmentError, type SegmentReader, writeSegment } from '../../store/segment-file.js';
import { dropDamagedSegment, openMatchingSegment, prefetchInBackground, segmentContents, storeInstanceOf } from './warm-segment.js';
import { Lexicon } from './lexicon.js';
import { attachCachedVectors, deletedSince } from './warm-catch-up.js';
import { drainInBackground, graphBeingBuilt } from './graph-builds.js';
import { writeSegmentInParts } from './segment-parts.js';
import { GraphSearchThread } from './graph-search-thread.js';
import { SEGMENT_REWRITE_MIN, SEGMENT_REWRITE_SHARE, type WarmIndexOptions } from './warm-options.js';
export { SEGMENT_REWRITE_MIN, type SegmentEvent, type WarmIndexOptions } from './warm-options.js';

/**
 * The store's chunks held in memory for fast search: an inverted index and a vector matrix. Before
 * each search it catches up with whatever any process committed since, so results are never stale.
 */
export class WarmIndex {
  private termIds = new Lexicon();
  private lexical: LexicalIndex;
  private vectors: ExactOrGraphVectorIndex | undefined;
  /** The segment file this index was restored from, open while parts of it are still unread. */
  private reader: SegmentReader | undefined;
  /** Rows held without a vector (progressive phase 1, a failed embedder): their vectors may be attached later. */
  private readonly withoutVector = new Map<number, { path: string; language: string; contentHash: string }>();
  private lastLexiconId = 0;
  private watermark = 0;
  private token: string | undefined;
  private refreshing: Promise<void> | undefined;
  /** The store's instance id, once read (absent: the store has none yet, so no segment is used and graphs are saved untagged). */
  private instance: string | undefined;
  private segmentTried = false;
  /** While any holds, a catch-up leaves the vector graph alone (see deferGraph). */
  private graphDeferrals = 0;
  /** The watermark of the segment file this index was read from or last wrote (-1: none). */
  private segmentWatermark = -1;
  private changesSinceSegment = 0; // rows added or removed since then
  /** The store's deletion count that segment reflects: each deletion since (of rows it never held too) a new process reads from the log. */
  private segmentDeletions: number | undefined;
  /** The store's chunk deletion count every deletion up to which this index has applied (undefined: unknown). */
  private deletionsSeen: number | undefined;
  private readonly graphThread: GraphSearchThread | undefined; // long-lived processes only (`searchThread`)
  /** Counts resets: a catch-up that awaited the store across one starts over. */
  private generation = 0;
  private retired = false;

  constructor(
    private readonly store: Store,
    readonly options: WarmIndexOptions,
  ) {
    this.lexical = new LexicalIndex(options.weights, this.termIds);
    this.vectors = vectorIndexFor({ ...this.options, storeInstance: () => this.instance });
    this.graphThread = options.searchThread ? new GraphSearchThread() : undefined;
  }

  /** A part of the segment file read on demand is damaged: forget the file (deleted, so no process reads it again) and start over from the rows. */
  private reset(error: SegmentError): void {
    const file = this.options.segmentFile;
    this.options.onSegment?.({ type: 'segment-rejected', file: file ?? '', rows: 0, ms: 0, reason: error.message });
    this.generation++;
    if (file && error.damaged) dropDamagedSegment(file, this.reader);
    this.reader?.close();
    this.reader = undefined;
    openReaders.unregister(this);
    this.termIds = new Lexicon();
    this.lexical = new LexicalIndex(this.options.weights, this.termIds);
    this.vectors = vectorIndexFor({ ...this.options, storeInstance: () => this.instance });
    this.withoutVector.clear();
    this.lastLexiconId = 0;
    this.watermark = 0;
    this.token = undefined;
    this.segmentWatermark = -1;
    this.segmentDeletions = undefined;
    this.changesSinceSegment = 0;
    this.deletionsSeen = undefined;
  }

  /** Runs a search; when a part of the segment read on demand is damaged, rebuilds from the store and runs it again. */
  async guard<T>(search: () => T | Promise<T>): Promise<T> {
    try {
      return await search();
    } catch (error) {
      if (!(error instanceof SegmentError)) throw error;
      this.reset(error);
      await this.refresh();
      return search();
    }
  }

  /** Replaced by its holder: the graph search thread and background read stop now; the segment file stays open for searches under way, until close() or `graceMs` from now. */
  retire(graceMs = 60_000): this {
    if (this.retired) return this;
    this.retired = true;
    void this.graphThread?.close();
    setTimeout(() => this.close(), graceMs).unref();
    return this;
  }

  /** Closes the segment file this index reads from and stops its background read (what is unread stays unread; later reads rebuild). */
  close(): void {
    this.retired = true;
    void this.graphThread?.close();
    this.reader?.close();
    openReaders.unregister(this);
  }

  get size(): number {
    return this.lexical.size;
  }

  /** Brings the index up to date with the store; concurrent callers share one refresh. */
  refresh(): Promise<void> {
    this.refreshing ??= this.catchUpOrRebuild().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Before a first search that needs vectors: the saved graph (this store's) is mapped on the graph thread while this one catches up (GraphSearchThread.prepare). */
  async prepareGraphThread(): Promise<void> {
    if (this.segmentTried || !this.vectors || !this.graphThread) return;
    await this.readInstance();
    if (!this.segmentTried) this.graphThread.prepare(this.vectors.savedGraphFile());
  }

  /** The store's instance id, read while unknown (indexing gives a store one): segment and graph files of another store are refused by it. */
  private async readInstance(): Promise<void> {
    if (this.instance === undefined && (this.options.segmentFile || this.options.graphFile)) this.instance = await storeInstanceOf(this.store);
  }

  /** Whether vector queries are answered by the HNSW graph (else exactly). */
  get usesVectorGraph(): boolean {
    return this.vectors?.usesGraph ?? false;
  }
  /** Whether they are exact because the saved graph is missing here or was refused (ExactOrGraphVectorIndex.lacksSavedGraph). */
  get lacksSavedGraph(): boolean {
    return this.vectors?.lacksSavedGraph ?? false;
  }

  /**
   * Catches up with the store, then saves what is expensive to rebuild (the segment file, the
   * HNSW graph) for the next process, if it changed. `withoutGraph`: neither build, map nor save
   * the graph (an indexing run's graph worker finishes the file; the next refresh maps it).
   * The segment is rewritten when anything changed since it was read or written; with
   * `minChanges`, only past that many rows (an indexing run: fewer stay a delta that the next
   * process reads from the store); with `pastThresholdOnly`, past the share threshold.
   */
  async persist(options: { pastThresholdOnly?: boolean; minChanges?: number; withoutGraph?: boolean } = {}): Promise<void> {
    const release = options.withoutGraph ? this.deferGraph() : undefined;
    try {
      // Nothing held or tried yet (a fresh build): a big store's segment is written a part at a time, then read as by a new process.
      if (!this.segmentTried && this.lexical.size === 0 && this.options.segmentFile)
        await writeSegmentInParts(this.store, { ...this.options, segmentFile: this.options.segmentFile }, this.options.segmentPartRows);
      await this.refresh();
    } finally {
      release?.();
    }
    await this.readInstance();
    if (!options.withoutGraph) this.persistGraph();
    const damaged = this.saveSegment(options.pastThresholdOnly ? this.rewriteThreshold() : (options.minChanges ?? 0));
    if (damaged) {
      // The file read from is damaged where the save read it (a block no search had needed): rebuilt from the store, then saved whole.
      this.reset(damaged);
      await this.refresh();
      if (!options.withoutGraph) this.persistGraph();
      this.saveSegment(0);
    }
  }

  /** Saves the graph if it changed; a long-lived process then maps the saved file in place of its copy in memory. */
  private persistGraph(): void {
    this.vectors?.persist();
    if (this.options.searchThread) this.vectors?.mapSavedGraph();
  }

  /**
   * Until the returned release is called, catch-ups (a search's included) leave the vector graph
   * alone (vector queries are exact): a run whose graph another thread is finishing holds this
   * until that graph is saved, so no search builds the same graph here meanwhile.
   */
  deferGraph(): () => void {
    this.graphDeferrals++;
    let released = false;
    return () => {
      if (!released) this.graphDeferrals--;
      released = true;
    };
  }

  /** At close: the graph if it changed, and the segment if this process caught up with many changes since read (no catch-up first; damage met in the file read from is reported and the file dropped). */
  saveGraph(): void {
    this.vectors?.persist();
    const damaged = this.saveSegment(this.rewriteThreshold());
    if (damaged) this.reset(damaged);
  }

  /** Whether this index was read from a segment file (else built from the store's rows). */
  get fromSegment(): boolean {
    return this.segmentWatermark >= 0;
  }

  /** Row changes past which a long-lived process rewrites the segment (watcher batches, closing). */
  private rewriteThreshold(): number {
    return Math.max(SEGMENT_REWRITE_MIN, SEGMENT_REWRITE_SHARE * this.lexical.size);
  }

  /**
   * Writes the segment file when it would be newer than the one on disk and, if this index
   * was read from or saved one, at least `minChanges` rows changed since. Never throws: the
   * file is a cache, and a read-only store folder only costs the next start.
   * Returns the damage found in the segment this index was read from, if saving found some.
   */
  private saveSegment(minChanges: number): SegmentError | undefined {
    const file = this.options.segmentFile;
    if (!file || this.instance === undefined || this.token === undefined || this.refreshing) return;
    // Rows changed since the file or deletions since it (each read from the store's log by a new process), whichever is more.
    const logged = this.deletionsSeen !== undefined && this.segmentDeletions !== undefined ? this.deletionsSeen - this.segmentDeletions : 0;
    const behind = Math.max(this.changesSinceSegment, logged);
    if (this.watermark === this.segmentWatermark && behind === 0) return;
    if (this.segmentWatermark >= 0 && behind < minChanges) return;
    const onDisk = readSegmentHeader(file);
    if (onDisk && onDisk.storeInstance === this.instance && onDisk.embedderId === this.options.embedderId && onDisk.watermark > this.watermark) return;
    const started = performance.now();
    try {
      const header = { ...this.segmentShape, watermark: this.watermark, lastLexiconId: this.lastLexiconId, ...(this.deletionsSeen !== undefined ? { chunkDeletions: this.deletionsSeen } : {}) };
      writeSegment(file, segmentContents({ header, lexical: this.lexical, vectors: this.vectors, termIds: this.termIds, withoutVector: this.withoutVector }));
      this.segmentWatermark = this.watermark;
      this.segmentDeletions = this.deletionsSeen;
      this.changesSinceSegment = 0;
      this.options.onSegment?.({ type: 'segment-saved', file, rows: this.lexical.size, ms: performance.now() - started });
    } catch (error) {
      // Damage in the file this index was read from is reported once, by the reset that follows.
      if (error instanceof SegmentError) return error;
      this.options.onSegment?.({ type: 'segment-rejected', file, rows: 0, ms: performance.now() - started, reason: `not saved: ${(error as Error).message}` });
    }
    return undefined;
  }

  /** What a segment file is written from and read against: this store (its instance id, once read), embedder and settings. */
  private get segmentShape(): { storeInstance: string; embedderId: string; dimensions: number; weights: WarmIndexOptions['weights'] } {
    return { storeInstance: this.instance ?? '', embedderId: this.options.embedderId, dimensions: this.vectors ? this.vectors.dimensions : 0, weights: this.options.weights };
  }

  /** Adopts the segment file, if it is whole and was written from this store with these settings. */
  private async loadSegment(current: () => boolean): Promise<void> {
    const file = this.options.segmentFile;
    if (!file || this.instance === undefined || this.lexical.size > 0) return;
    const started = performance.now();
    const rejected = (reason: string) => this.options.onSegment?.({ type: 'segment-rejected', file, rows: 0, ms: performance.now() - started, reason });
    const reader = await openMatchingSegment(this.store, file, this.segmentShape, rejected);
    if (!reader || !current()) return reader?.close(); // reset meanwhile: the rebuild reads the store instead
    this.lexical.restore(reader.lexical);
    if (this.vectors && reader.vectors) this.vectors.restore(reader.vectors);
    this.termIds.adopt(reader.lexicon);
    for (const { rowId, meta, contentHash } of reader.pending) this.withoutVector.set(rowId, { ...meta, contentHash });
    this.lastLexiconId = reader.header.lastLexiconId;
    this.watermark = reader.header.watermark;
    this.segmentWatermark = reader.header.watermark;
    const deletions = reader.header.chunkDeletions;
    this.deletionsSeen = Number.isSafeInteger(deletions) && (deletions as number) >= 0 ? deletions : undefined;
    this.segmentDeletions = this.deletionsSeen;
    this.reader = reader;
    openReaders.register(this, reader, this);
    this.options.onSegment?.({ type: 'segment-loaded', file, rows: this.lexical.size, ms: performance.now() - started });
    if (this.options.prefetch) {
      const { lexical, vectors } = this;
      // Stops when this index is rebuilt, waits while its graph is built elsewhere; damage resets it (rebuilt from the store).
      const parts = { lexicon: reader.lexicon, metas: reader.lexical.metas, segment: { file, reader, onSegment: this.options.onSegment } };
      const live = () => lexical === this.lexical && vectors === this.vectors && !this.retired;
      const building = () => graphBeingBuilt(this.options.graphFile);
      prefetchInBackground(parts, lexical, vectors, live, (error) => this.reset(error), building);
    }
  }

  searchLexical(terms: readonly string[], limit: number, filter: SearchFilter | undefined): ScoredRow[] {
    return this.lexical.search(terms, limit, compileFilter(filter));
  }

  termStatistics(terms: readonly string[]): TermStatistics {
    return this.lexical.termStatistics(terms);
  }

  languages(): Map<string, number> {
    return this.lexical.languages();
  }

  searchVectors(vector: Float32Array, limit: number, filter: SearchFilter | undefined): ScoredRow[] {
    return this.vectors ? this.vectors.search(vector, limit, compileFilter(filter)) : [];
  }

  /** Handles the graph thread's replies already sent, without waiting for the event loop (rank-pool.ts, between rows). */
  takeVectorReplies(): void {
    this.graphThread?.takeReplies();
  }

  /** searchVectors, the graph walked on a second thread when the graph is a mapped file (graph-search-thread.ts): the caller may score BM25 meanwhile. */
  async searchVectorsBeside(vector: Float32Array, limit: number, filter: SearchFilter | undefined): Promise<ScoredRow[]> {
    const vectors = this.vectors; // reset meanwhile (damage the lexical search found): the index now held answers
    if (!vectors || !this.graphThread) return this.searchVectors(vector, limit, filter);
    const answer = await vectors.searchOn(this.graphThread, vector, limit, compileFilter(filter), () => vectors === this.vectors);
    if (answer) return answer;
    await this.refresh(); // reset meanwhile: the index now held answers once it caught up
    return this.searchVectors(vector, limit, filter);
  }

  /**
   * Catches up, starting over when the index was reset meanwhile (damage that another search
   * or the background read found): what was read for the index before the reset is not
   * applied to the one after it. A reset index reads no segment, so this ends.
   */
  private async catchUpOrRebuild(): Promise<void> {
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        if (await this.catchUp()) return;
      } catch (error) {
        if (!(error instanceof SegmentError)) throw error;
        this.reset(error);
      }
    }
    throw new LociError('INTERNAL', 'The index was reset four times during one catch-up; the next search tries again.');
  }

  /** false: the index was reset while this awaited the store (the caller starts over). */
  private async catchUp(): Promise<boolean> {
    const generation = this.generation;
    const current = () => generation === this.generation;
    const token = await this.store.changeToken();
    if (!current()) return false;
    if (token === this.token) {
      this.graphUpkeep(current); // caught up while the graph was left for later (persist withoutGraph)
      return true;
    }
    await this.readInstance(); // at each change while unknown: a store is given one by its first indexing run
    if (!this.segmentTried) {
      this.segmentTried = true;
      if (this.options.segmentFile) {
        await this.loadSegment(current);
        if (!current()) return false;
      }
    }
    // New rows in slices, giving the event loop a turn between them: a catch-up after a big write never holds other requests for long.
    for (;;) {
      const fresh = await this.store.scanIndexRows({ afterRowId: this.watermark, limit: CATCH_UP_SLICE, ...(this.vectors ? { embedderId: this.options.embedderId } : {}) });
      if (!current()) return false;
      const added = fresh.map((row) => ({ rowId: row.rowId, meta: { path: row.path, language: row.language }, terms: row.terms }));
      this.lexical.addMany(added);
      for (const [index, row] of fresh.entries()) {
        const meta = (added[index] as (typeof added)[number]).meta;
        if (this.vectors && row.vector && row.vector.length === this.vectors.dimensions) this.vectors.add(row.rowId, row.vector, meta);
        else if (this.vectors && row.contentHash) this.withoutVector.set(row.rowId, { ...meta, contentHash: row.contentHash });
        this.watermark = Math.max(this.watermark, row.rowId);
      }
      this.changesSinceSegment += fresh.length;
      if (fresh.length < CATCH_UP_SLICE) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!current()) return false;
    }
    // After the rows: a term is committed with the first row that uses it, so every term id just read is in the lexicon now.
    const lexicon = await this.store.readLexicon(this.lastLexiconId);
    if (!current()) return false;
    for (const [id, term] of lexicon) {
      this.termIds.set(term, id);
      this.lastLexiconId = Math.max(this.lastLexiconId, id);
    }
    const deleted = await deletedSince(this.store, this.lexical, this.deletionsSeen, this.watermark);
    if (!current()) return false;
    this.removeRows(deleted.gone);
    this.deletionsSeen = deleted.seen;
    // Vectors attached to rows already held (by content hash; each a change the segment lacks).
    const vectors = this.vectors && this.withoutVector.size > 0 ? this.vectors : undefined;
    if (vectors) this.changesSinceSegment += await attachCachedVectors(this.store, this.options.embedderId, this.withoutVector, vectors, CATCH_UP_SLICE, current);
    if (!current()) return false;
    this.graphUpkeep(current);
    this.token = token;
    return true;
  }

  /** Builds or maps the graph, and puts rows changed since into it in the background; not while deferred, nor while this process's worker builds the file (searches are exact meanwhile). */
  private graphUpkeep(current: () => boolean): void {
    if (this.graphDeferrals === 0 && !graphBeingBuilt(this.options.graphFile)) this.vectors?.ensureGraph();
    if (this.vectors) drainInBackground(this.vectors, () => current() && !this.retired && this.graphDeferrals === 0);
  }

  private removeRows(rowIds: ArrayLike<number>): void {
    this.changesSinceSegment += rowIds.length;
    for (let index = 0; index < rowIds.length; index++) {
      const rowId = rowIds[index] as number;
      this.lexical.remove(rowId);
      this.vectors?.remove(rowId);
      this.withoutVector.delete(rowId);
    }
  }
}

/** A warm index dropped without close() still closes its segment file. */
const openReaders = new FinalizationRegistry<SegmentReader>((reader) => reader.close());

const CATCH_UP_SLICE = 1000; // rows read per step of a catch-up (a few milliseconds of work)
