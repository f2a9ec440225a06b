import type { TermTable } from '../../store/segment-file.js';

/** Term text → lexicon id: what the lexical index looks terms up in. */
export interface TermLookup {
  get(term: string): number | undefined;
}

/**
 * The store's lexicon in memory: a segment's sorted table (looked up by its terms' bytes, no
 * string or map entry per term; a segment reads it a block at a time) plus a map of the
 * terms added since.
 */
export class Lexicon implements TermLookup {
  private readonly added = new Map<string, number>();
  private base: TermTable | undefined;

  get(term: string): number | undefined {
    const id = this.added.get(term);
    if (id !== undefined || !this.base) return id;
    return this.base.find(Buffer.from(term, 'utf8'));
  }

  set(term: string, id: number): void {
    this.added.set(term, id);
  }

  /** Adopts a sorted table (an empty lexicon only). */
  adopt(table: TermTable): void {
    if (this.base || this.added.size > 0) throw new Error('adopt() needs an empty lexicon');
    this.base = table;
  }

  /** Every term and id (the table's decoded), for writing a segment. */
  entries(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    if (this.base) for (const entry of this.base.entries()) if (!this.added.has(entry[0])) out.push(entry);
    for (const entry of this.added) out.push(entry);
    return out;
  }
}
