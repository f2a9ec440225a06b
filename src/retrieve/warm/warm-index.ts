import type { LexicalWeights, ScoredRow, SearchFilter, Store, TermStatistics } from '../../store/spec.js';
import { compileFilter } from '../../store/filter-match.js';
import { LexicalIndex } from './lexical-index.js';
import { defaultHnswOptions, ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';

export interface WarmIndexOptions {
  weights: LexicalWeights;
  /** Embedder whose vectors to hold; `none` for lexical only. */
  embedderId: string;
  dimensions: number;
  /** Where to keep the HNSW graph between processes (absent: rebuilt when needed). */
  graphFile?: string;
  /** Vector count from which an HNSW graph answers unfiltered queries. */
  graphThreshold?: number;
}

/**
 * The store's chunks held in memory for fast search: an inverted index and a vector
 * matrix. Before each search it catches up with whatever any process committed since
 * (new rows by row id, deletions by comparing live ids), so results are never stale.
 */
export class WarmIndex {
  private readonly termIds = new Map<string, number>();
  private readonly lexical: LexicalIndex;
  private readonly vectors: ExactOrGraphVectorIndex | undefined;
  /** Rows held without a vector (progressive phase 1, a failed embedder): their vectors may be attached later. */
  private readonly withoutVector = new Map<number, { path: string; language: string; contentHash: string }>();
  private lastLexiconId = 0;
  private watermark = 0;
  private token: string | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    readonly options: WarmIndexOptions,
  ) {
    this.lexical = new LexicalIndex(options.weights, this.termIds);
    this.vectors =
      options.embedderId !== 'none' && options.dimensions > 0
        ? new ExactOrGraphVectorIndex(options.dimensions, {
            ...defaultHnswOptions,
            ...(options.graphFile ? { file: options.graphFile } : {}),
            ...(options.graphThreshold !== undefined ? { threshold: options.graphThreshold } : {}),
          })
        : undefined;
  }

  get size(): number {
    return this.lexical.size;
  }

  /** Brings the index up to date with the store; concurrent callers share one refresh. */
  refresh(): Promise<void> {
    this.refreshing ??= this.catchUp().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Whether vector queries are answered by the HNSW graph (else exactly). */
  get usesVectorGraph(): boolean {
    return this.vectors?.usesGraph ?? false;
  }

  /** Catches up with the store, then saves what is expensive to rebuild (the HNSW graph) for the next process, if it changed. */
  async persist(): Promise<void> {
    await this.refresh();
    this.vectors?.persist();
  }

  /** Saves the graph as it is now, if it changed since loaded or saved (at close: no catch-up first; the next process reconciles). */
  saveGraph(): void {
    this.vectors?.persist();
  }

  searchLexical(terms: readonly string[], limit: number, filter: SearchFilter | undefined): ScoredRow[] {
    return this.lexical.search(terms, limit, compileFilter(filter));
  }

  termStatistics(terms: readonly string[]): TermStatistics {
    return this.lexical.termStatistics(terms);
  }

  languages(): string[] {
    return this.lexical.languages();
  }

  searchVectors(vector: Float32Array, limit: number, filter: SearchFilter | undefined): ScoredRow[] {
    return this.vectors ? this.vectors.search(vector, limit, compileFilter(filter)) : [];
  }

  private async catchUp(): Promise<void> {
    const token = await this.store.changeToken();
    if (token === this.token) return;
    // New rows in slices, giving the event loop a turn between them: a catch-up after a big
    // write never holds other requests for long.
    for (;;) {
      const fresh = await this.store.scanIndexRows({ afterRowId: this.watermark, limit: CATCH_UP_SLICE, ...(this.vectors ? { embedderId: this.options.embedderId } : {}) });
      for (const row of fresh) {
        const meta = { path: row.path, language: row.language };
        this.lexical.add(row.rowId, meta, row.terms);
        if (this.vectors && row.vector && row.vector.length === this.vectors.dimensions) this.vectors.add(row.rowId, row.vector, meta);
        else if (this.vectors && row.contentHash) this.withoutVector.set(row.rowId, { ...meta, contentHash: row.contentHash });
        this.watermark = Math.max(this.watermark, row.rowId);
      }
      if (fresh.length < CATCH_UP_SLICE) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // After the rows: a term is committed with the first row that uses it, so every term id
    // just read is in the lexicon now.
    for (const [id, term] of await this.store.readLexicon(this.lastLexiconId)) {
      this.termIds.set(term, id);
      this.lastLexiconId = Math.max(this.lastLexiconId, id);
    }
    // Rows are never updated in place, only deleted and re-inserted with new ids.
    if ((await this.store.countChunks()) !== this.lexical.size) {
      const alive = new Set(await this.store.liveRowIds());
      const gone = [...this.lexical.rowIds()].filter((rowId) => !alive.has(rowId));
      for (const rowId of gone) {
        this.lexical.remove(rowId);
        this.vectors?.remove(rowId);
        this.withoutVector.delete(rowId);
      }
    }
    // Vectors attached to rows already held (the store joins vectors by content hash).
    if (this.vectors && this.withoutVector.size > 0) await this.attachVectors(this.vectors);
    this.vectors?.ensureGraph();
    this.token = token;
  }

  private async attachVectors(vectors: ExactOrGraphVectorIndex): Promise<void> {
    const entries = [...this.withoutVector];
    for (let start = 0; start < entries.length; start += CATCH_UP_SLICE) {
      const slice = entries.slice(start, start + CATCH_UP_SLICE);
      const found = await this.store.getCachedVectors(this.options.embedderId, [...new Set(slice.map(([, entry]) => entry.contentHash))]);
      for (const [rowId, { contentHash, ...meta }] of slice) {
        const vector = found.get(contentHash);
        if (!vector || vector.length !== vectors.dimensions) continue;
        vectors.add(rowId, vector, meta);
        this.withoutVector.delete(rowId);
      }
      if (found.size > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** Rows read per step of a catch-up (a few milliseconds of work). */
const CATCH_UP_SLICE = 1000;
