import type { LexicalSnapshot, SegmentRowMeta } from '../../store/segment-file.js';
import type { Postings } from './bm25-scoring.js';
import type { RowTerms } from './row-terms.js';

/** What a snapshot reads of a lexical index: its slot arrays, row terms (all read) and postings (all read). */
export interface SnapshotSource {
  slotCount: number;
  alive: Uint8Array;
  rowIds: Float64Array;
  lengths: Float64Array;
  meta: ReadonlyArray<SegmentRowMeta | undefined>;
  rowTerms: RowTerms;
  postings: ReadonlyArray<Postings | undefined>;
}

/** The live rows as flat arrays, renumbered 0..n-1 in slot order (what a segment file holds). */
export function snapshotRows(state: SnapshotSource): LexicalSnapshot {
  const remap = new Int32Array(state.slotCount).fill(-1);
  let rows = 0;
  let entries = 0;
  for (let slot = 0; slot < state.slotCount; slot++) {
    if (!state.alive[slot]) continue;
    remap[slot] = rows++;
    entries += state.rowTerms.count(slot);
  }
  const rowIds = new Float64Array(rows);
  const lengths = new Float64Array(rows);
  const termOffsets = new Uint32Array(rows + 1);
  const termIds = new Uint32Array(entries);
  const weighted = new Float32Array(entries);
  const metaIndex = new Uint32Array(rows);
  const metas: SegmentRowMeta[] = [];
  const metaIds = new Map<string, Map<string, number>>();
  let at = 0;
  for (let slot = 0; slot < state.slotCount; slot++) {
    const row = remap[slot] as number;
    if (row < 0) continue;
    rowIds[row] = state.rowIds[slot] as number;
    lengths[row] = state.lengths[slot] as number;
    const terms = state.rowTerms.of(slot);
    termIds.set(terms.termIds, at);
    weighted.set(terms.weighted, at);
    at += terms.termIds.length;
    termOffsets[row + 1] = at;
    const meta = state.meta[slot] as SegmentRowMeta;
    let byLanguage = metaIds.get(meta.path);
    if (!byLanguage) metaIds.set(meta.path, (byLanguage = new Map()));
    let id = byLanguage.get(meta.language);
    if (id === undefined) {
      id = metas.length;
      metas.push({ path: meta.path, language: meta.language });
      byLanguage.set(meta.language, id);
    }
    metaIndex[row] = id;
  }
  // Postings of live rows only, in slot order (renumbering keeps it).
  const postingTermList: number[] = [];
  let postingEntries = 0;
  state.postings.forEach((postings, termId) => {
    if (!postings || postings.documentFrequency <= 0) return;
    postingTermList.push(termId);
    postingEntries += postings.documentFrequency;
  });
  const postingTerms = Uint32Array.from(postingTermList);
  const postingOffsets = new Uint32Array(postingTerms.length + 1);
  const postingSlots = new Int32Array(postingEntries);
  const postingWeighted = new Float32Array(postingEntries);
  const postingMax = new Float32Array(postingTerms.length);
  let write = 0;
  postingTerms.forEach((termId, index) => {
    const postings = state.postings[termId] as Postings;
    for (let read = 0; read < postings.length; read++) {
      const target = remap[postings.slots[read] as number] as number;
      if (target < 0) continue;
      postingSlots[write] = target;
      postingWeighted[write] = postings.weighted[read] as number;
      if ((postings.weighted[read] as number) > (postingMax[index] as number)) postingMax[index] = postings.weighted[read] as number;
      write++;
    }
    postingOffsets[index + 1] = write;
  });
  return { rowIds, lengths, termOffsets, termIds, weighted, metaIndex, metas, postingTerms, postingOffsets, postingSlots, postingWeighted, postingMax };
}
