import type { EncodedTerms } from '../../lexical/codec.js';
import type { LexicalWeights, ScoredRow, TermStatistics } from '../../store/spec.js';
import type { RowFilter } from '../../store/filter-match.js';
import type { LexicalBase, LexicalSnapshot, SegmentRowMeta } from '../../store/segment-file.js';
import { scoreTopK, type QueryTerm, type RowScore, type ScoringView } from './bm25-scoring.js';
import { scoreSlots } from './bm25-slots.js';
import { postingBlocks, summarizedFrom, WINDOW_SHIFT } from './posting-blocks.js';
import { FolderSlots } from './folder-slots.js';
import type { TermLookup } from './lexicon.js';
import { PostingLists } from './posting-lists.js';
import { RowTerms } from './row-terms.js';
import type { PostingRange } from './restored-postings.js';
import { snapshotRows } from './lexical-snapshot.js';
import { MetaSlots } from './meta-slots.js';
import { RowSlots } from './row-slots.js';

/** Below a few thousand postings a query the plain walk is as fast; above 5k pruning wins (docs/benchmarks.md). */
const PRUNE_ABOVE_POSTINGS = 5_000;

export interface LexicalRowMeta {
  path: string;
  language: string;
}

export type { LexicalSnapshot };

/**
 * An in-memory inverted index that scores exactly like FTS5's bm25() with column weights
 * (weighted term frequency, whole-row length normalisation, idf clamped at 1e-6), but
 * over typed arrays with block-max top-k pruning (bm25-scoring.ts): ~1 ms at 100k chunks, not ~70.
 */
export class LexicalIndex {
  /** Each term's postings by lexicon id. */
  private readonly lists = new PostingLists();
  private slotRowIds = new Float64Array(1024);
  private slotLengths = new Float64Array(1024);
  private slotAlive = new Uint8Array(1024);
  /** Each slot's sorted term ids and field-weighted frequencies. */
  private readonly rowTerms = new RowTerms();
  /** Live slots by the folder of their path, so a prefix filter can score only its rows. */
  private readonly folders = new FolderSlots();
  private metas = new MetaSlots();
  private readonly slotOfRow = new RowSlots();
  private slotCount = 0;
  /** Long lists summarizeLongLists has still to summarise (found at its first call). */
  private unsummarized: number[] | undefined;
  private deadSlots = 0;
  private liveTokens = 0;
  private readonly languageCounts = new Map<string, number>();
  private accumulator = new Float64Array(1024);
  private members: Uint8Array | undefined;
  /** The field weights, in the field order of EncodedTerms.frequencies. */
  private readonly fieldWeights: Float64Array;

  constructor(
    readonly weights: LexicalWeights,
    /** term text → lexicon id, shared with the store. */
    private readonly termIds: TermLookup,
    /** Below this many postings a query is walked exhaustively (pruning costs more than it saves there). */
    private readonly pruneAbove = PRUNE_ABOVE_POSTINGS,
    /** Slots per pruning window, as a power of two (tests use small windows to cross many). */
    private readonly windowShift = WINDOW_SHIFT,
  ) {
    this.fieldWeights = Float64Array.of(weights.path, weights.symbols, weights.heading, weights.body);
  }

  get size(): number {
    return this.slotOfRow.size;
  }

  /** The live rows as flat arrays (see LexicalSnapshot); the index itself is not changed. */
  snapshot(): LexicalSnapshot & { metas: SegmentRowMeta[] } {
    this.rowTerms.materialize();
    this.lists.materializeAll();
    return snapshotRows({
      slotCount: this.slotCount,
      alive: this.slotAlive,
      rowIds: this.slotRowIds,
      lengths: this.slotLengths,
      meta: (slot) => this.metas.get(slot),
      rowTerms: this.rowTerms,
      postingTermIds: this.lists.heldTermIds(),
      postings: (termId) => this.lists.get(termId),
    });
  }

  /**
   * Adopts a base into this empty index: the row table as it is; each term's postings and
   * each row's terms are read from the base when first needed.
   */
  restore(base: LexicalBase): void {
    if (this.slotCount !== 0) throw new Error('restore() needs an empty lexical index');
    const rows = base.rowIds.length;
    // Room for a delta (rows committed after the file): the first few catch up without regrowing every slot array.
    const capacity = Math.max(1024, rows + (rows >>> 5));
    this.slotRowIds = new Float64Array(capacity);
    this.slotRowIds.set(base.rowIds);
    this.slotLengths = new Float64Array(capacity);
    this.slotLengths.set(base.lengths);
    this.slotAlive = new Uint8Array(capacity).fill(1, 0, rows);
    this.accumulator = new Float64Array(capacity);
    const { metas, metaIndex } = base;
    this.rowTerms.restore(base, capacity);
    const rowsOfMeta = new Uint32Array(metas.count);
    for (let row = 0; row < rows; row++) {
      const index = metaIndex[row] as number;
      rowsOfMeta[index] = (rowsOfMeta[index] as number) + 1;
      this.liveTokens += base.lengths[row] as number;
    }
    const { languageIds, languages } = metas;
    if (languageIds && languages) {
      // By language index: no map lookup per entry (1M of them at 1M rows).
      const counts = new Float64Array(languages.length);
      for (let index = 0; index < metas.count; index++) counts[languageIds[index] as number] = (counts[languageIds[index] as number] as number) + (rowsOfMeta[index] as number);
      languages.forEach((language, index) => {
        if ((counts[index] as number) > 0) this.languageCounts.set(language, (this.languageCounts.get(language) ?? 0) + (counts[index] as number));
      });
    } else {
      for (let index = 0; index < metas.count; index++) {
        const count = rowsOfMeta[index] as number;
        if (count === 0) continue;
        const language = metas.language(index);
        this.languageCounts.set(language, (this.languageCounts.get(language) ?? 0) + count);
      }
    }
    this.slotOfRow.restore(base.rowIds);
    this.metas.restore(metas, metaIndex);
    this.slotCount = rows;
    this.folders.defer(() => {
      const out: Array<readonly [string, number]> = [];
      for (let slot = 0; slot < this.slotCount; slot++) if (this.slotAlive[slot]) out.push([(this.metas.get(slot) as LexicalRowMeta).path, slot]);
      return out;
    });
    this.lists.restore(base);
  }

  /**
   * Reads up to `terms` more of the restored postings (a long-lived process warms itself in
   * the background, so no later query pays a first read). False once none are left.
   */
  prefetch(terms: number): boolean {
    return this.lists.prefetch(terms);
  }

  /** Builds the block summaries pruning reads for every list long enough to use one, as each term's first query would, for up to `budgetMs`; true while some are left. */
  summarizeLongLists(budgetMs: number): boolean {
    const rows = this.slotOfRow.size;
    if (rows === 0 || this.slotCount === 0) return false;
    const least = summarizedFrom(((this.slotCount - 1) >> this.windowShift) + 1);
    this.unsummarized ??= this.lists.termsWithAtLeast(least);
    const deadline = performance.now() + budgetMs;
    // At least one list a call, however short the budget.
    for (let first = true; this.unsummarized.length > 0 && (first || performance.now() < deadline); first = false) {
      const postings = this.lists.get(this.unsummarized.pop() as number);
      if (postings && postings.length >= least) postingBlocks(postings, this.slotLengths, this.windowShift, this.liveTokens / rows);
    }
    return this.unsummarized.length > 0;
  }

  /** Keeps restored postings a background thread read (prefetch-worker.ts): later queries take theirs from them. */
  adoptPostings(range: PostingRange): void {
    this.lists.adoptRange(range);
  }

  has(rowId: number): boolean {
    return this.slotOfRow.has(rowId);
  }

  rowIds(): IterableIterator<number> {
    return this.slotOfRow.keys();
  }

  /**
   * Adds many new rows (a catch-up's slice) as add() would, appending postings term by term
   * instead of row by row: a term's list is looked up and grown once per call, and written
   * in order. Rows already held (or twice in `rows`) go through add() one at a time.
   */
  addMany(rows: ReadonlyArray<{ rowId: number; meta: LexicalRowMeta; terms: EncodedTerms }>): void {
    let total = 0;
    const seen = new Set<number>();
    for (const row of rows) {
      if (this.slotOfRow.has(row.rowId) || seen.has(row.rowId)) {
        for (const each of rows) this.add(each.rowId, each.meta, each.terms);
        return;
      }
      seen.add(row.rowId);
      total += row.terms.termIds.length;
    }
    // Entries in row order (ascending slots): appendByTerm groups them by term.
    const entryTerms = new Int32Array(total);
    const slots = new Int32Array(total);
    const weights = new Float32Array(total);
    let entry = 0;
    for (const { rowId, meta, terms } of rows) {
      const slot = this.addRow(rowId, meta, terms);
      const slotWeights = this.rowTerms.of(slot).weighted;
      for (let index = 0; index < slotWeights.length; index++) {
        entryTerms[entry] = terms.termIds[index] as number;
        slots[entry] = slot;
        weights[entry] = slotWeights[index] as number;
        entry++;
      }
    }
    this.lists.appendByTerm(entryTerms, slots, weights);
  }

  add(rowId: number, meta: LexicalRowMeta, terms: EncodedTerms): void {
    if (this.slotOfRow.has(rowId)) this.remove(rowId);
    const slot = this.addRow(rowId, meta, terms);
    const { termIds, weighted } = this.rowTerms.of(slot);
    for (let entry = 0; entry < termIds.length; entry++) this.lists.append(termIds[entry] as number, slot, weighted[entry] as number);
  }

  /** A new row's slot, length, metadata and weighted term frequencies; its postings are the caller's. */
  private addRow(rowId: number, meta: LexicalRowMeta, terms: EncodedTerms): number {
    const slot = this.slotCount++;
    this.ensureCapacity(this.slotCount);
    const fieldWeights = this.fieldWeights;
    const length = terms.fieldLengths[0] + terms.fieldLengths[1] + terms.fieldLengths[2] + terms.fieldLengths[3];
    this.slotRowIds[slot] = rowId;
    this.slotLengths[slot] = length;
    this.slotAlive[slot] = 1;
    this.metas.set(slot, meta);
    this.slotOfRow.set(rowId, slot);
    this.liveTokens += length;
    const count = terms.termIds.length;
    const slotWeights = this.rowTerms.add(slot, terms.termIds);
    for (let entry = 0; entry < count; entry++) {
      let weighted = 0;
      for (let field = 0; field < 4; field++) weighted += (fieldWeights[field] as number) * (terms.frequencies[entry * 4 + field] as number);
      slotWeights[entry] = weighted;
    }
    this.folders.add(meta.path, slot);
    this.languageCounts.set(meta.language, (this.languageCounts.get(meta.language) ?? 0) + 1);
    return slot;
  }

  remove(rowId: number): void {
    const slot = this.slotOfRow.get(rowId);
    if (slot === undefined) return;
    this.slotOfRow.delete(rowId);
    this.slotAlive[slot] = 0;
    this.liveTokens -= this.slotLengths[slot] as number;
    const { termIds } = this.rowTerms.of(slot);
    for (let entry = 0; entry < termIds.length; entry++) this.lists.removeDocument(termIds[entry] as number);
    const meta = this.metas.get(slot);
    if (meta) {
      this.folders.remove(meta.path, slot);
      const left = (this.languageCounts.get(meta.language) ?? 1) - 1;
      if (left > 0) this.languageCounts.set(meta.language, left);
      else this.languageCounts.delete(meta.language);
    }
    this.metas.clear(slot);
    this.deadSlots++;
    // Dead postings are skipped while scoring; compact once they are a quarter of all.
    if (this.deadSlots > 1024 && this.deadSlots > this.slotCount / 4) this.compact();
  }

  search(terms: readonly string[], limit: number, accept?: RowFilter): ScoredRow[] {
    return this.run(terms, limit, accept, true);
  }

  /** The same top k without pruning: every posting of every term (a reference for tests and bench/). */
  searchExhaustive(terms: readonly string[], limit: number, accept?: RowFilter): ScoredRow[] {
    return this.run(terms, limit, accept, false);
  }

  private run(terms: readonly string[], limit: number, accept: RowFilter | undefined, prune: boolean): ScoredRow[] {
    const rows = this.slotOfRow.size;
    if (rows === 0 || limit <= 0) return [];
    const averageLength = this.liveTokens / rows;
    const query = this.queryTerms(terms, rows);
    if (query.length === 0) return [];
    let postingsCost = 0;
    for (const { postings } of query) postingsCost += postings.length;
    // A selective prefix (a namespace, a folder): score only its rows, either document at a
    // time or by marking them so postings of other rows are skipped.
    let members: Uint8Array | undefined;
    let candidates: number[] | undefined;
    if (accept?.prefixes) {
      candidates = this.folders.under(accept.prefixes);
      if (candidates.length * 8 < rows) {
        // Pick the cheaper walk: every posting of the query terms, or every term of the
        // marked rows (a binary search each). Both give the same scores.
        if (candidates.length * query.length * 4 < postingsCost) return this.rows(scoreSlots(this.view(), query, limit, averageLength, accept, candidates));
        members = this.membership();
        for (const slot of candidates) members[slot] = 1;
      }
    }
    try {
      return this.rows(scoreTopK(this.view(), query, limit, averageLength, accept, members, prune && postingsCost > this.pruneAbove, this.windowShift));
    } finally {
      if (members && candidates) for (const slot of candidates) members[slot] = 0;
    }
  }

  /** The query's distinct known terms, in query order, with their idf. */
  private queryTerms(terms: readonly string[], rows: number): QueryTerm[] {
    const query: QueryTerm[] = [];
    for (const term of new Set(terms)) {
      const termId = this.termIds.get(term);
      const postings = termId === undefined ? undefined : this.lists.get(termId);
      if (termId === undefined || !postings || postings.documentFrequency <= 0) continue;
      const hits = postings.documentFrequency;
      let idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
      if (idf <= 0) idf = 1e-6;
      query.push({ termId, idf, postings });
    }
    return query;
  }

  private view(): ScoringView {
    return {
      rowIds: this.slotRowIds,
      alive: this.slotAlive,
      lengths: this.slotLengths,
      accepts: (slot, accept) => this.metas.accepts(slot, accept),
      accumulator: this.accumulator,
      slotCount: this.slotCount,
    };
  }

  private rows(scores: RowScore[]): ScoredRow[] {
    return scores.map(({ rowId, score }) => ({ rowId, score, path: (this.metas.get(this.slotOfRow.get(rowId) as number) as LexicalRowMeta).path }));
  }

  /** A zeroed byte per slot, reused across searches (callers clear what they set). */
  private membership(): Uint8Array {
    if (!this.members || this.members.length < this.slotRowIds.length) this.members = new Uint8Array(this.slotRowIds.length);
    return this.members;
  }

  /** How many live rows hold each term, out of how many (the same counts BM25's IDF uses). */
  termStatistics(terms: readonly string[]): TermStatistics {
    const frequencies = new Map<string, number>();
    for (const term of terms) {
      const termId = this.termIds.get(term);
      frequencies.set(term, termId === undefined ? 0 : Math.max(0, this.lists.get(termId)?.documentFrequency ?? 0));
    }
    return { chunks: this.slotOfRow.size, frequencies };
  }

  /** Languages of the live rows, sorted, each with its live row count. */
  languages(): Map<string, number> {
    return new Map([...this.languageCounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Term ids of a row, for feedback and explanation. */
  termsOf(rowId: number): Uint32Array | undefined {
    const slot = this.slotOfRow.get(rowId);
    return slot === undefined ? undefined : this.rowTerms.of(slot).termIds;
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.slotRowIds.length) return;
    const next = Math.max(slots, this.slotRowIds.length * 2);
    const grow = <T extends Float64Array | Uint8Array>(array: T, make: (size: number) => T): T => {
      const bigger = make(next);
      bigger.set(array);
      return bigger;
    };
    this.slotRowIds = grow(this.slotRowIds, (size) => new Float64Array(size));
    this.slotLengths = grow(this.slotLengths, (size) => new Float64Array(size));
    this.slotAlive = grow(this.slotAlive, (size) => new Uint8Array(size));
    this.rowTerms.grow(next);
    this.accumulator = new Float64Array(next);
  }

  /** Drops dead slots by renumbering live ones; postings are rebuilt in slot order. */
  private compact(): void {
    const remap = new Int32Array(this.slotCount).fill(-1);
    let next = 0;
    for (let slot = 0; slot < this.slotCount; slot++) if (this.slotAlive[slot]) remap[slot] = next++;
    this.lists.compact(remap);
    const rowIds = new Float64Array(Math.max(1024, next));
    const lengths = new Float64Array(rowIds.length);
    const alive = new Uint8Array(rowIds.length);
    this.rowTerms.compact(remap, rowIds.length);
    const metas = new MetaSlots();
    this.folders.clear();
    for (let slot = 0; slot < this.slotCount; slot++) {
      const target = remap[slot] as number;
      if (target < 0) continue;
      rowIds[target] = this.slotRowIds[slot] as number;
      lengths[target] = this.slotLengths[slot] as number;
      alive[target] = 1;
      const meta = this.metas.get(slot) as LexicalRowMeta;
      metas.set(target, meta);
      this.folders.add(meta.path, target);
      this.slotOfRow.set(rowIds[target] as number, target);
    }
    this.slotRowIds = rowIds;
    this.slotLengths = lengths;
    this.slotAlive = alive;
    this.metas = metas;
    this.slotCount = next;
    this.deadSlots = 0;
    this.accumulator = new Float64Array(rowIds.length);
  }
}
