import type { LexicalBase } from '../../store/segment-file.js';
import type { Postings } from './posting-blocks.js';
import { type PostingRange, renumber, RestoredPostings } from './restored-postings.js';

/** Postings added to, or rows removed from, a restored list not read yet. */
interface Deferred {
  slots: number[];
  weighted: number[];
  maxWeighted: number;
  /** Rows of the list removed meanwhile (their document frequency). */
  removed: number;
}

/**
 * Each term's postings by lexicon id (ids are dense: an array beats a Map on the load path),
 * in ascending slots; a restored base's lists are read from it when a query first reads a term.
 * Rows added or removed before then are kept beside the unread list and applied when it is read,
 * so catching up with the rows written since the base (a new process's delta) reads no list.
 */
export class PostingLists {
  /**
   * The lists held, in the order they were first placed, and each one's term id. A term id
   * finds its list through `placeOf` (1 + its index here; 0: none), which grows by doubling: a
   * restored base's terms are read in query order, scattered over ids up to the lexicon's size,
   * and an array indexed by term id grew one element at a time to the largest (at 1M chunks,
   * ~970k elements over a new process's first 100 queries, ~1.2 ms a query).
   */
  private readonly held: Array<Postings | undefined> = [];
  private readonly heldTerms: number[] = [];
  private placeOf = new Int32Array(0);
  /** A restored base's postings not read yet. */
  private restored: RestoredPostings | undefined;
  /** Changes to restored lists not read yet, by term id. */
  private readonly deferred = new Map<number, Deferred>();
  /** appendByTerm's counts by term id, all zero between calls (kept: a catch-up makes many calls). */
  private counts = new Int32Array(0);

  /** Adopts a base's postings (read on first use). */
  restore(base: LexicalBase): void {
    this.restored = new RestoredPostings(base);
    this.deferred.clear();
  }

  /** The ids of the terms whose lists are held, ascending; call materializeAll first to include the base's. */
  heldTermIds(): number[] {
    const out: number[] = [];
    const { placeOf, held } = this;
    for (let termId = 0; termId < placeOf.length; termId++) {
      const at = placeOf[termId] as number;
      if (at > 0 && held[at - 1] !== undefined) out.push(termId);
    }
    return out;
  }

  /** The list held for a term (none read from the restored base). */
  private heldList(termId: number): Postings | undefined {
    const at = termId < this.placeOf.length ? (this.placeOf[termId] as number) : 0;
    return at > 0 ? this.held[at - 1] : undefined;
  }

  private forEachHeld(visit: (postings: Postings, termId: number, at: number) => void): void {
    for (let at = 0; at < this.held.length; at++) {
      const postings = this.held[at];
      if (postings) visit(postings, this.heldTerms[at] as number, at);
    }
  }

  /** A term's postings, read from the restored base on first use (with the changes made to it meanwhile). */
  get(termId: number): Postings | undefined {
    const postings = this.heldList(termId);
    if (postings || !this.restored) return postings;
    const made = this.restored.take(termId);
    if (!made) return undefined;
    const changes = this.deferred.get(termId);
    if (changes) {
      this.deferred.delete(termId);
      const length = made.length + changes.slots.length;
      const slots = new Int32Array(length);
      slots.set(made.slots.subarray(0, made.length));
      slots.set(changes.slots, made.length); // added rows have slots above every restored one
      const weighted = new Float32Array(length);
      weighted.set(made.weighted.subarray(0, made.length));
      weighted.set(changes.weighted, made.length);
      made.slots = slots;
      made.weighted = weighted;
      made.length = length;
      made.documentFrequency += changes.slots.length - changes.removed;
      if (changes.maxWeighted > made.maxWeighted) made.maxWeighted = changes.maxWeighted;
    }
    this.place(termId, made);
    return made;
  }

  /** A row holding the term was removed: one document fewer (its postings are skipped as dead). */
  removeDocument(termId: number): void {
    const postings = this.heldList(termId);
    if (postings) postings.documentFrequency--;
    else if (this.restored?.has(termId)) this.deferredFor(termId).removed++;
  }

  /** The changes kept for an unread restored list (made when first needed). */
  private deferredFor(termId: number): Deferred {
    let changes = this.deferred.get(termId);
    if (!changes) {
      changes = { slots: [], weighted: [], maxWeighted: 0, removed: 0 };
      this.deferred.set(termId, changes);
    }
    return changes;
  }

  /** Whether the term's list is still unread in the restored base (changes to it are deferred). */
  private unread(termId: number): boolean {
    return this.restored?.has(termId) === true && this.heldList(termId) === undefined;
  }

  /** Reads up to `terms` more of the restored lists; false once none are left. */
  prefetch(terms: number): boolean {
    if (!this.restored) return false;
    for (const termId of this.restored.next(terms)) this.get(termId);
    return !this.restored.done;
  }

  /** Term ids whose list holds at least `length` postings: read ones, and restored ones by their stored length (a list's deferred changes aside). */
  termsWithAtLeast(length: number): number[] {
    const found = new Set(this.restored?.termsWithAtLeast(length));
    this.forEachHeld((postings, termId) => {
      if (postings.length >= length) found.add(termId);
    });
    return [...found];
  }

  /** Keeps postings of the restored base another thread read (its lists are taken from them, unread). */
  adoptRange(range: PostingRange): void {
    this.restored?.adopt(range);
  }

  /** Every restored list read (before walking them all: snapshot, compaction). */
  materializeAll(): void {
    if (!this.restored) return;
    for (const termId of this.restored.next()) this.get(termId);
    this.restored = undefined;
  }

  append(termId: number, slot: number, weighted: number): void {
    if (this.unread(termId)) {
      deferAppend(this.deferredFor(termId), slot, weighted);
      return;
    }
    const postings = this.withRoom(termId, 1);
    postings.slots[postings.length] = slot;
    postings.weighted[postings.length] = weighted;
    postings.length++;
    postings.documentFrequency++;
    if (weighted > postings.maxWeighted) postings.maxWeighted = weighted;
  }

  /**
   * Appends entries grouped by term: entry e is term `terms[e]` at slot `slots[e]` with
   * weight `weights[e]`, entries in ascending slots. A counting sort groups them by term in
   * O(entries), keeping slot order within each term (a numeric sort of 100k keyed entries took
   * ~10 ms, this ~1 ms); each term's list is then looked up and grown once, in ascending terms.
   */
  appendByTerm(terms: Int32Array, slots: Int32Array, weights: Float32Array): void {
    const total = terms.length;
    let counts = this.counts;
    const distinct: number[] = [];
    for (let entry = 0; entry < total; entry++) {
      const termId = terms[entry] as number;
      if (termId >= counts.length) this.counts = counts = grownToHold(counts, termId);
      const seen = counts[termId] as number;
      if (seen === 0) distinct.push(termId);
      counts[termId] = seen + 1;
    }
    const order = Int32Array.from(distinct).sort();
    // Each term's first place in `byTerm` (its count is read first, then replaced by the place).
    const firsts = new Int32Array(order.length + 1);
    let place = 0;
    for (let index = 0; index < order.length; index++) {
      const termId = order[index] as number;
      const count = counts[termId] as number;
      firsts[index] = place;
      counts[termId] = place;
      place += count;
    }
    firsts[order.length] = place;
    const byTerm = new Int32Array(total);
    for (let entry = 0; entry < total; entry++) {
      const termId = terms[entry] as number;
      byTerm[counts[termId] as number] = entry;
      counts[termId] = (counts[termId] as number) + 1;
    }
    for (let index = 0; index < order.length; index++) {
      const termId = order[index] as number;
      counts[termId] = 0;
      const start = firsts[index] as number;
      const end = firsts[index + 1] as number;
      if (this.unread(termId)) {
        const changes = this.deferredFor(termId);
        for (let at = start; at < end; at++) {
          const from = byTerm[at] as number;
          deferAppend(changes, slots[from] as number, weights[from] as number);
        }
        continue;
      }
      const postings = this.withRoom(termId, end - start);
      for (let at = start; at < end; at++) {
        const from = byTerm[at] as number;
        const weighted = weights[from] as number;
        postings.slots[postings.length] = slots[from] as number;
        postings.weighted[postings.length] = weighted;
        postings.length++;
        if (weighted > postings.maxWeighted) postings.maxWeighted = weighted;
      }
      postings.documentFrequency += end - start;
    }
  }

  /** Renumbers every list's slots by `remap` (−1: the slot is gone), dropping emptied lists. */
  compact(remap: Int32Array): void {
    // Lists still in the restored base are renumbered when first read; the changes kept for them, now.
    this.restored?.renumberLater(remap);
    for (const changes of this.deferred.values()) {
      const kept = renumber(changes.slots, changes.weighted, remap);
      changes.slots.length = kept;
      changes.weighted.length = kept;
      changes.removed = 0; // every row removed so far is gone from the base's list (renumbered) and from these
    }
    this.forEachHeld((postings, _, at) => {
      postings.blocks = undefined; // slots are renumbered: the window summary no longer holds
      postings.length = renumber(postings.slots, postings.weighted, remap, postings.length);
      if (postings.length === 0) this.held[at] = undefined; // its place is kept for the term
    });
  }

  /** A term's list with room for `more` entries (made or grown as needed). */
  private withRoom(termId: number, more: number): Postings {
    let postings = this.get(termId);
    if (!postings) {
      const size = Math.max(4, more);
      postings = { slots: new Int32Array(size), weighted: new Float32Array(size), length: 0, documentFrequency: 0, maxWeighted: 0 };
      this.place(termId, postings);
    }
    if (postings.length + more > postings.slots.length) {
      const size = Math.max(postings.length * 2, postings.length + more);
      const slots = new Int32Array(size);
      slots.set(postings.slots.subarray(0, postings.length));
      const weights = new Float32Array(size);
      weights.set(postings.weighted.subarray(0, postings.length));
      postings.slots = slots;
      postings.weighted = weights;
    }
    return postings;
  }

  private place(termId: number, postings: Postings): void {
    let placeOf = this.placeOf;
    if (termId >= placeOf.length) this.placeOf = placeOf = grownToHold(placeOf, termId);
    const at = placeOf[termId] as number;
    if (at > 0) {
      this.held[at - 1] = postings;
      return;
    }
    this.held.push(postings);
    this.heldTerms.push(termId);
    placeOf[termId] = this.held.length;
  }
}

/** A copy of a table indexed by term id with room for `termId` (doubled at least, so growth costs O(1) a term). */
function grownToHold(table: Int32Array, termId: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(Math.max(termId + 1, table.length * 2, 1024));
  grown.set(table);
  return grown;
}

/** A posting kept for an unread restored list (slots arrive in ascending order, after the list's own). */
function deferAppend(changes: Deferred, slot: number, weighted: number): void {
  changes.slots.push(slot);
  changes.weighted.push(weighted);
  if (weighted > changes.maxWeighted) changes.maxWeighted = weighted;
}
