import type { LexicalSnapshot, SegmentRowMeta } from '../../store/segment-file.js';
import type { Postings } from './posting-blocks.js';
import type { RowTerms } from './row-terms.js';

/** What a snapshot reads of a lexical index: its slot arrays, row terms (all read) and postings (all read). */
export interface SnapshotSource {
  slotCount: number;
  alive: Uint8Array;
  rowIds: Float64Array;
  lengths: Float64Array;
  meta(slot: number): SegmentRowMeta | undefined;
  rowTerms: RowTerms;
  /** The ids of the terms with lists, ascending, and each one's list. */
  postingTermIds: readonly number[];
  postings(termId: number): Postings | undefined;
}

/** Row metadata numbered in the order rows first use it (path and language), as a segment file lists it. */
export function metaNumbering(): { metas: SegmentRowMeta[]; idOf(meta: SegmentRowMeta): number } {
  const metas: SegmentRowMeta[] = [];
  // A path's one meta id (nearly always), or its ids by language once it has a second: a map
  // per path cost ~100 bytes each, ~100 MB for a store of 1M documents.
  const ids = new Map<string, number | Map<string, number>>();
  const add = (meta: SegmentRowMeta): number => metas.push({ path: meta.path, language: meta.language }) - 1;
  return {
    metas,
    idOf(meta) {
      const known = ids.get(meta.path);
      if (known === undefined) {
        const id = add(meta);
        ids.set(meta.path, id);
        return id;
      }
      if (typeof known === 'number') {
        const first = metas[known] as SegmentRowMeta;
        if (first.language === meta.language) return known;
        const id = add(meta);
        const byLanguage = new Map<string, number>().set(first.language, known).set(meta.language, id);
        ids.set(meta.path, byLanguage);
        return id;
      }
      let id = known.get(meta.language);
      if (id === undefined) known.set(meta.language, (id = add(meta)));
      return id;
    },
  };
}

/**
 * The live rows renumbered 0..n-1 in slot order (what a segment file holds). Row and term
 * tables are built here; each row's terms and each term's postings are handed out one at a
 * time, as views of the index's arrays when no slot is dead (a fresh build: nothing copied),
 * else as renumbered copies of one term's postings at a time. Valid until the index changes.
 */
export function snapshotRows(state: SnapshotSource): LexicalSnapshot & { metas: SegmentRowMeta[] } {
  let rows = 0;
  let entries = 0;
  for (let slot = 0; slot < state.slotCount; slot++) {
    if (!state.alive[slot]) continue;
    rows++;
    entries += state.rowTerms.count(slot);
  }
  // Row r lives in slot slotOfRow[r]; with no dead slot, row r is slot r.
  const dense = rows === state.slotCount;
  const slotOfRow = new Int32Array(dense ? 0 : rows);
  const remap = dense ? undefined : new Int32Array(state.slotCount).fill(-1);
  const rowIds = new Float64Array(rows);
  const lengths = new Float64Array(rows);
  const termOffsets = new Uint32Array(rows + 1);
  const metaIndex = new Uint32Array(rows);
  const { metas, idOf } = metaNumbering();
  for (let slot = 0, row = 0, at = 0; slot < state.slotCount; slot++) {
    if (!state.alive[slot]) continue;
    if (remap) {
      remap[slot] = row;
      slotOfRow[row] = slot;
    }
    rowIds[row] = state.rowIds[slot] as number;
    lengths[row] = state.lengths[slot] as number;
    at += state.rowTerms.count(slot);
    termOffsets[row + 1] = at;
    metaIndex[row] = idOf(state.meta(slot) as SegmentRowMeta);
    row++;
  }
  if ((termOffsets[rows] as number) !== entries) throw new Error('lexical snapshot: row term counts changed while reading');
  // Terms with live postings; each one's live entries (its document frequency) and largest weight.
  const postingTerms = Uint32Array.from(state.postingTermIds.filter((termId) => (state.postings(termId)?.documentFrequency ?? 0) > 0));
  const postingOffsets = new Uint32Array(postingTerms.length + 1);
  const postingMax = new Float32Array(postingTerms.length);
  const postingsOf = (index: number): { slots: Int32Array; weighted: Float32Array } => {
    const postings = state.postings(postingTerms[index] as number) as Postings;
    if (!remap) return { slots: postings.slots.subarray(0, postings.length), weighted: postings.weighted.subarray(0, postings.length) };
    const slots = new Int32Array(postings.documentFrequency);
    const weighted = new Float32Array(postings.documentFrequency);
    let write = 0;
    for (let read = 0; read < postings.length; read++) {
      const target = remap[postings.slots[read] as number] as number;
      if (target < 0) continue;
      slots[write] = target;
      weighted[write++] = postings.weighted[read] as number;
    }
    return { slots, weighted };
  };
  // Each term's live count and largest weight, read in place (the writer takes each list twice more: checksum, write).
  for (let index = 0, at = 0; index < postingTerms.length; index++) {
    const postings = state.postings(postingTerms[index] as number) as Postings;
    let max = 0;
    let live = 0;
    for (let entry = 0; entry < postings.length; entry++) {
      if (remap && (remap[postings.slots[entry] as number] as number) < 0) continue;
      live++;
      if ((postings.weighted[entry] as number) > max) max = postings.weighted[entry] as number;
    }
    if (live !== postings.documentFrequency) throw new Error(`lexical snapshot: term ${postingTerms[index]} has ${live} live postings, counted ${postings.documentFrequency}`);
    postingMax[index] = max;
    at += live;
    postingOffsets[index + 1] = at;
  }
  return {
    rowIds,
    lengths,
    termOffsets,
    rowTerms: (row) => state.rowTerms.of(remap ? (slotOfRow[row] as number) : row),
    metaIndex,
    metas,
    postingTerms,
    postingOffsets,
    postings: postingsOf,
    postingMax,
  };
}
