import type { TermList } from '../lexical/codec.js';

/**
 * A store's term ids for the term lists that chunk statistics point into, by list index: an
 * indexing run shares one list, so each of its terms is looked up once per run, not once per
 * chunk that uses it.
 */
export class ListTermIds {
  private byList = new WeakMap<TermList, Int32Array>();

  /** The id of each index of `table` (0 until looked up: store term ids start at 1), asking `lookup` the first time. */
  resolver(table: TermList, lookup: (term: string) => number): (ref: number) => number {
    let ids = this.byList.get(table);
    return (ref) => {
      if (!ids || ref >= ids.length) {
        const grown = new Int32Array(Math.max(ref + 1, table.terms.length, (ids?.length ?? 0) * 2, 64));
        if (ids) grown.set(ids);
        this.byList.set(table, (ids = grown));
      }
      let id = ids[ref] as number;
      if (id === 0) {
        const term = table.terms[ref];
        if (term === undefined) throw new Error(`Term ${ref} is not in its list (${table.terms.length} terms).`);
        id = lookup(term);
        ids[ref] = id;
      }
      return id;
    };
  }

  /** Forgets every id: a rolled-back write may have looked up ids that were never committed. */
  clear(): void {
    this.byList = new WeakMap();
  }
}
