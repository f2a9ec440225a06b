import type { LexicalBase } from '../../store/segment-file.js';

export interface RowTermsView {
  termIds: Uint32Array;
  weighted: Float32Array;
}

/**
 * Every row's sorted term ids and field-weighted frequencies, in one pool instead of two
 * arrays per row: slot s's entries are termStart[s] .. termEnd[s]. Entries below `poolBase`
 * belong to rows restored from a segment file and are read from it when needed (removing
 * such a row); entries from it on live in termPool/weightPool at entry − poolBase.
 */
export class RowTerms {
  private termStart: Uint32Array = new Uint32Array(1024);
  private termEnd: Uint32Array = new Uint32Array(1024);
  private termPool: Uint32Array = new Uint32Array(16_384);
  private weightPool: Float32Array = new Float32Array(16_384);
  /** Entries in use, counting from 0 across base and pool (removed rows keep theirs until compaction). */
  private used = 0;
  private poolBase = 0;
  private base: LexicalBase | undefined;

  /** Room for slots up to `capacity`. */
  grow(capacity: number): void {
    if (capacity <= this.termStart.length) return;
    const bigger = (array: Uint32Array): Uint32Array => {
      const out = new Uint32Array(capacity);
      out.set(array);
      return out;
    };
    this.termStart = bigger(this.termStart);
    this.termEnd = bigger(this.termEnd);
  }

  /** Adopts a restored base's rows (slots 0..rows−1); their terms stay in the file until needed. */
  restore(base: LexicalBase, capacity: number): void {
    const rows = base.rowIds.length;
    this.termStart = new Uint32Array(capacity);
    this.termStart.set(base.termOffsets.subarray(0, rows));
    this.termEnd = new Uint32Array(capacity);
    this.termEnd.set(base.termOffsets.subarray(1, rows + 1));
    this.poolBase = base.termOffsets[rows] as number;
    this.used = this.poolBase;
    this.base = base;
  }

  /** Stores a new row's term ids; returns the view its weighted frequencies are written into. */
  add(slot: number, termIds: Uint32Array): Float32Array {
    const count = termIds.length;
    this.ensurePool(this.used + count);
    const start = this.used;
    this.termStart[slot] = start;
    this.termEnd[slot] = start + count;
    this.used += count;
    const local = start - this.poolBase;
    this.termPool.set(termIds, local);
    return this.weightPool.subarray(local, local + count);
  }

  count(slot: number): number {
    return (this.termEnd[slot] as number) - (this.termStart[slot] as number);
  }

  /** A slot's terms (read from the file for a restored row). */
  of(slot: number): RowTermsView {
    const start = this.termStart[slot] as number;
    const end = this.termEnd[slot] as number;
    if (start < this.poolBase && this.base) return start === end ? { termIds: new Uint32Array(0), weighted: new Float32Array(0) } : this.base.rowTerms(this.baseRow(start));
    return { termIds: this.termPool.subarray(start - this.poolBase, end - this.poolBase), weighted: this.weightPool.subarray(start - this.poolBase, end - this.poolBase) };
  }

  /** Reads every restored row's terms into the pool (before walking all rows: snapshot, compaction). */
  materialize(): void {
    const base = this.base;
    if (!base) return;
    const all = base.allRowTerms();
    const local = this.used - this.poolBase;
    const size = Math.max(16_384, this.used);
    const terms = new Uint32Array(size);
    terms.set(all.termIds);
    terms.set(this.termPool.subarray(0, local), this.poolBase);
    const weights = new Float32Array(size);
    weights.set(all.weighted);
    weights.set(this.weightPool.subarray(0, local), this.poolBase);
    this.termPool = terms;
    this.weightPool = weights;
    this.poolBase = 0;
    this.base = undefined;
  }

  /**
   * Keeps the slots with remap[slot] ≥ 0, renumbered to remap[slot]. A restored row's terms stay
   * in the file (its entries keep their numbers, read by entry: baseRow), so a compaction reads
   * none of them (at 35k rows that read took ~0.2 s of a compaction that held searches).
   */
  compact(remap: Int32Array, capacity: number): void {
    const base = this.poolBase;
    let entries = 0;
    for (let slot = 0; slot < remap.length; slot++) if ((remap[slot] as number) >= 0 && (this.termStart[slot] as number) >= base) entries += this.count(slot);
    const termStart = new Uint32Array(capacity);
    const termEnd = new Uint32Array(capacity);
    const termPool = new Uint32Array(Math.max(16_384, entries));
    const weightPool = new Float32Array(termPool.length);
    let at = 0;
    for (let slot = 0; slot < remap.length; slot++) {
      const target = remap[slot] as number;
      if (target < 0) continue;
      const start = this.termStart[slot] as number;
      const end = this.termEnd[slot] as number;
      if (start < base) {
        termStart[target] = start;
        termEnd[target] = end;
        continue;
      }
      termPool.set(this.termPool.subarray(start - base, end - base), at);
      weightPool.set(this.weightPool.subarray(start - base, end - base), at);
      termStart[target] = base + at;
      at += end - start;
      termEnd[target] = base + at;
    }
    this.termStart = termStart;
    this.termEnd = termEnd;
    this.termPool = termPool;
    this.weightPool = weightPool;
    this.used = base + at;
  }

  /** The restored row whose terms start at entry `start` of the file, one of at least one term (its slot may have changed since: compaction). */
  private baseRow(start: number): number {
    const offsets = (this.base as LexicalBase).termOffsets;
    // The last row starting at or before `start`: rows after it start past it, and rows of no terms before it share its start.
    let low = 0;
    let high = offsets.length - 2;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((offsets[middle] as number) <= start) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private ensurePool(entries: number): void {
    const local = entries - this.poolBase;
    if (local <= this.termPool.length) return;
    const next = Math.max(local, this.termPool.length * 2, 16_384);
    const used = this.used - this.poolBase;
    const terms = new Uint32Array(next);
    terms.set(this.termPool.subarray(0, used));
    const weights = new Float32Array(next);
    weights.set(this.weightPool.subarray(0, used));
    this.termPool = terms;
    this.weightPool = weights;
  }
}
