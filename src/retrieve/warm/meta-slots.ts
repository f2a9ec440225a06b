import type { RowFilter } from '../../store/filter-match.js';
import type { MetaTable, SegmentRowMeta } from '../../store/segment-format.js';

/**
 * Each slot's path and language. Slots restored from a segment keep only their index into
 * the segment's metadata table (decoded when a search asks for them), so a start makes no
 * object per row; slots added later hold their own object.
 */
export class MetaSlots {
  private table: MetaTable | undefined;
  /** Restored slot s (below `restored`) has the table's entry index[s], unless `replaced[s]`. */
  private index: Uint32Array = new Uint32Array(0);
  private restored = 0;
  /** Restored slots cleared or given another meta since (their meta then lives in `own`). */
  private replaced: Uint8Array | undefined;
  /** Metadata of slots at or past `restored` (at slot − restored), and of replaced restored slots (by slot). */
  private added: Array<SegmentRowMeta | undefined> = [];
  private readonly own = new Map<number, SegmentRowMeta>();

  /** Adopts a segment's slots 0..index.length − 1 (an empty table only). */
  restore(table: MetaTable, index: Uint32Array): void {
    if (this.restored > 0 || this.added.length > 0) throw new Error('restore() needs empty metadata');
    this.table = table;
    this.index = index;
    this.restored = index.length;
  }

  get(slot: number): SegmentRowMeta | undefined {
    if (slot >= this.restored) return this.added[slot - this.restored];
    if (this.replaced?.[slot]) return this.own.get(slot);
    return (this.table as MetaTable).get(this.index[slot] as number);
  }

  /** The language of a slot's meta without decoding its path. */
  language(slot: number): string | undefined {
    if (slot >= this.restored || this.replaced?.[slot]) return this.get(slot)?.language;
    return (this.table as MetaTable).language(this.index[slot] as number);
  }

  /** Whether the slot holds a row that passes `accept`; a filter on language alone decodes no path. */
  accepts(slot: number, accept: RowFilter): boolean {
    if (accept.pathFree) {
      const language = this.language(slot);
      return language !== undefined && accept('', language);
    }
    const meta = this.get(slot);
    return meta !== undefined && accept(meta.path, meta.language);
  }

  set(slot: number, meta: SegmentRowMeta): void {
    if (slot >= this.restored) {
      this.added[slot - this.restored] = meta;
      return;
    }
    this.replace(slot);
    this.own.set(slot, meta);
  }

  clear(slot: number): void {
    if (slot >= this.restored) {
      if (slot - this.restored < this.added.length) this.added[slot - this.restored] = undefined;
      return;
    }
    this.replace(slot);
    this.own.delete(slot);
  }

  private replace(slot: number): void {
    this.replaced ??= new Uint8Array(this.restored);
    this.replaced[slot] = 1;
  }
}
