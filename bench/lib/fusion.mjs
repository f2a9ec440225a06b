// What the peer engines share: top k, plain query words, reciprocal rank fusion.
export const K = 10;
/** Candidates each signal contributes before a peer's hybrid fuses them (loci fetches its own). */
export const FUSE_DEPTH = 50;

/** Plain word tokens for engines whose query syntax must not see raw input. */
export function words(text) {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, 32);
}

export function rrf(lists, depth = K) {
  const scores = new Map();
  for (const list of lists) list.forEach((row, rank) => scores.set(row, (scores.get(row) ?? 0) + 1 / (60 + rank)));
  return [...scores.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, depth)
    .map(([row]) => row);
}
