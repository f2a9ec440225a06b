/**
 * Row id → slot, as a Map holds it. An index restored from a segment starts from the file's
 * row ids (slot = position): while they are sorted and nothing has changed, lookups
 * binary-search them, so a new process answers its first search without building a map of
 * every row (~10 ms and its garbage at 100k rows, for each of the lexical and vector index).
 * The first change builds the map.
 */
export class RowSlots {
  private map = new Map<number, number>();
  /** Restored row ids, strictly increasing, slot = index; absent once the map holds them. */
  private restored: Float64Array | undefined;

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
    return this.restored ? this.restored.length : this.map.size;
  }

  get(rowId: number): number | undefined {
    const restored = this.restored;
    if (!restored) return this.map.get(rowId);
    let low = 0;
    let high = restored.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = restored[middle] as number;
      if (value === rowId) return middle;
      if (value < rowId) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
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
    let at = 0;
    for (let index = 0; index < rowIds.length; index++) {
      const rowId = rowIds[index] as number;
      while (at < restored.length && (restored[at] as number) < rowId) at++;
      if (at === restored.length || restored[at] !== rowId) return false;
    }
    return true;
  }

  set(rowId: number, slot: number): void {
    this.materialize().set(rowId, slot);
  }

  delete(rowId: number): boolean {
    return this.materialize().delete(rowId);
  }

  keys(): IterableIterator<number> {
    return this.restored ? this.restored.values() : this.map.keys();
  }

  private materialize(): Map<number, number> {
    const restored = this.restored;
    if (restored) {
      for (let slot = 0; slot < restored.length; slot++) this.map.set(restored[slot] as number, slot);
      this.restored = undefined;
    }
    return this.map;
  }
}
