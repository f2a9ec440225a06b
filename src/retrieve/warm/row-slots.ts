/**
 * Row id → slot, as a Map holds it. An index restored from a segment starts from the file's
 * row ids (slot = position): lookups binary-search them, so a new process answers its first
 * search without building a map of every row (~10 ms and its garbage at 100k rows, for each
 * of the lexical and vector index). Rows added since sit in a small map beside them and
 * restored rows deleted since in a set of slots, so catching up with a few changes (a delta
 * the segment file does not hold yet) builds no map of every row either.
 */
export class RowSlots {
  /** Rows added since the restore (every row, when nothing was restored). */
  private map = new Map<number, number>();
  /** Restored row ids, strictly increasing, slot = index; absent when nothing was restored. */
  private restored: Float64Array | undefined;
  /** Slots of restored rows deleted since. */
  private gone = new Set<number>();

  /** Adopts `rowIds` (slot = index) into this empty table; the array must not change afterwards. */
  restore(rowIds: Float64Array): void {
    if (this.size !== 0) throw new Error('RowSlots.restore() needs an empty table');
    for (let index = 1; index < rowIds.length; index++) {
      if (!((rowIds[index] as number) > (rowIds[index - 1] as number))) {
        for (let slot = 0; slot < rowIds.length; slot++) this.map.set(rowIds[slot] as number, slot);
        return;
      }
    }
    this.restored = rowIds;
  }

  get size(): number {
    return this.restored ? this.restored.length - this.gone.size + this.map.size : this.map.size;
  }

  get(rowId: number): number | undefined {
    const added = this.map.get(rowId);
    if (added !== undefined || !this.restored) return added;
    const slot = this.restoredSlot(rowId);
    return slot === undefined || this.gone.has(slot) ? undefined : slot;
  }

  has(rowId: number): boolean {
    return this.get(rowId) !== undefined;
  }

  /**
   * Whether every one of `rowIds` is held. Ascending ids against restored ones are checked in
   * one merged pass (a saved graph's key list at 1M: ~3 ms instead of ~50 ms of searches).
   */
  hasAll(rowIds: Int32Array): boolean {
    const restored = this.restored;
    let ascending = restored !== undefined;
    for (let index = 1; ascending && index < rowIds.length; index++) ascending = (rowIds[index] as number) > (rowIds[index - 1] as number);
    if (!restored || !ascending) {
      for (let index = 0; index < rowIds.length; index++) if (!this.has(rowIds[index] as number)) return false;
      return true;
    }
    const { map, gone } = this;
    let at = 0;
    for (let index = 0; index < rowIds.length; index++) {
      const rowId = rowIds[index] as number;
      if (map.size > 0 && map.has(rowId)) continue;
      while (at < restored.length && (restored[at] as number) < rowId) at++;
      if (at === restored.length || restored[at] !== rowId || (gone.size > 0 && gone.has(at))) return false;
    }
    return true;
  }

  /**
   * Held rows absent from `keys` (ascending) and how many of `keys` are not held (a saved
   * graph's key list against the rows now): undefined when there are more than `extraLimit`
   * or `absentLimit` of them, or the keys do not ascend.
   */
  beside(keys: Int32Array, extraLimit: number, absentLimit: number): { extra: number[]; absent: number } | undefined {
    for (let index = 1; index < keys.length; index++) if ((keys[index] as number) <= (keys[index - 1] as number)) return undefined;
    const extra: number[] = [];
    let found = 0;
    const restored = this.restored;
    if (restored) {
      let at = 0;
      for (let slot = 0; slot < restored.length; slot++) {
        if (this.gone.size > 0 && this.gone.has(slot)) continue;
        const rowId = restored[slot] as number;
        while (at < keys.length && (keys[at] as number) < rowId) at++;
        if (at < keys.length && keys[at] === rowId) found++;
        else if (extra.push(rowId) > extraLimit) return undefined;
      }
    }
    for (const rowId of this.map.keys()) {
      if (sortedIndexOf(keys, rowId) >= 0) found++;
      else if (extra.push(rowId) > extraLimit) return undefined;
    }
    const absent = keys.length - found;
    return absent > absentLimit ? undefined : { extra, absent };
  }

  set(rowId: number, slot: number): void {
    const at = this.restored ? this.restoredSlot(rowId) : undefined;
    if (at !== undefined && !this.gone.has(at)) {
      // A restored row keeping its slot (a compaction renumbering rows after it) is no change;
      // one given another slot makes one map of every row.
      if (at === slot) return;
      this.materialize();
    }
    this.map.set(rowId, slot);
  }

  delete(rowId: number): boolean {
    if (this.map.delete(rowId)) return true;
    const at = this.restored ? this.restoredSlot(rowId) : undefined;
    if (at === undefined || this.gone.has(at)) return false;
    this.gone.add(at);
    return true;
  }

  /** Restored rows first (ascending), then those added since, in the order they came. */
  keys(): IterableIterator<number> {
    const restored = this.restored;
    if (!restored) return this.map.keys();
    if (this.gone.size === 0 && this.map.size === 0) return restored.values();
    return this.liveKeys(restored);
  }

  private *liveKeys(restored: Float64Array): IterableIterator<number> {
    for (let slot = 0; slot < restored.length; slot++) if (!this.gone.has(slot)) yield restored[slot] as number;
    yield* this.map.keys();
  }

  private restoredSlot(rowId: number): number | undefined {
    const at = sortedIndexOf(this.restored as Float64Array, rowId);
    return at < 0 ? undefined : at;
  }

  private materialize(): void {
    const restored = this.restored;
    if (!restored) return;
    const added = this.map;
    this.map = new Map();
    for (let slot = 0; slot < restored.length; slot++) if (!this.gone.has(slot)) this.map.set(restored[slot] as number, slot);
    for (const [rowId, slot] of added) this.map.set(rowId, slot);
    this.restored = undefined;
    this.gone.clear();
  }
}

/**
 * Where `value` is in the ascending `values` (distinct row ids), or -1. The first probe is
 * where an even spread of ids would put it, then steps double outward to bracket it and a
 * binary search finishes: ids run nearly dense, so the probes stay within a few cache lines
 * of each other (a plain binary search over 1M ids misses the cache on each of its last ~10).
 */
export function sortedIndexOf(values: Float64Array | Int32Array, value: number): number {
  const last = values.length - 1;
  if (last < 0) return -1;
  const first = values[0] as number;
  const final = values[last] as number;
  if (!(value >= first && value <= final)) return -1;
  const guess = final > first ? Math.floor(((value - first) / (final - first)) * last) : 0;
  const at = values[guess] as number;
  if (at === value) return guess;
  let low: number;
  let high: number;
  if (at < value) {
    low = guess + 1;
    let step = 1;
    high = Math.min(last, guess + step);
    while (high < last && (values[high] as number) < value) {
      low = high + 1;
      step *= 2;
      high = Math.min(last, guess + step);
    }
  } else {
    high = guess - 1;
    let step = 1;
    low = Math.max(0, guess - step);
    while (low > 0 && (values[low] as number) > value) {
      high = low - 1;
      step *= 2;
      low = Math.max(0, guess - step);
    }
  }
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = values[middle] as number;
    if (found === value) return middle;
    if (found < value) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
