import type { SortedTerms } from '../../store/segment-file.js';

/** Term text → lexicon id: what the lexical index looks terms up in. */
export interface TermLookup {
  get(term: string): number | undefined;
}

/**
 * The store's lexicon in memory: a sorted byte table read from a segment file (looked up
 * by binary search, no string or map entry per term) plus a map of the terms added since.
 */
export class Lexicon implements TermLookup {
  private readonly added = new Map<string, number>();
  private base: SortedTerms | undefined;

  get(term: string): number | undefined {
    const id = this.added.get(term);
    if (id !== undefined || !this.base) return id;
    const { bytes, offsets, ids } = this.base;
    const key = Buffer.from(term, 'utf8');
    let low = 0;
    let high = ids.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = key.compare(bytes, offsets[middle] as number, offsets[middle + 1] as number);
      if (order === 0) return ids[middle] as number;
      if (order < 0) high = middle - 1;
      else low = middle + 1;
    }
    return undefined;
  }

  set(term: string, id: number): void {
    this.added.set(term, id);
  }

  /** Adopts a sorted table (an empty lexicon only). */
  adopt(table: SortedTerms): void {
    if (this.base || this.added.size > 0) throw new Error('adopt() needs an empty lexicon');
    this.base = table;
  }

  /** Every term and id (the table's decoded), for writing a segment. */
  entries(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    if (this.base) {
      const { bytes, offsets, ids } = this.base;
      for (let index = 0; index < ids.length; index++) {
        const term = bytes.toString('utf8', offsets[index] as number, offsets[index + 1] as number);
        if (!this.added.has(term)) out.push([term, ids[index] as number]);
      }
    }
    for (const entry of this.added) out.push(entry);
    return out;
  }
}
