/** Seeded test data for the warm-index tests: a Zipf-like vocabulary, so scores rarely tie, and clustered vectors. */
export const vocabulary = Array.from({ length: 300 }, (_, index) => `word${index.toString(36)}x`);

export const pick = (next: () => number) => vocabulary[Math.floor(vocabulary.length * next() ** 3)] as string;

/** A seeded generator in [0, 1). */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** A seeded uniform source in [0, 1) whose draws do not repeat in short runs (mulberry32): `random` repeats 16-value rows within a few hundred. */
export function distinctRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Clustered vectors (like real embeddings), not uniform noise, where HNSW recall is meaningful and graph candidates spread in score. */
export function clusteredVectors(count: number, dimensions: number, seed: number): Float32Array[] {
  const uniform = random(seed);
  const next = () => uniform() * 2 - 1;
  const centers = Array.from({ length: 40 }, () => Float32Array.from({ length: dimensions }, next));
  return Array.from({ length: count }, (_, index) => Float32Array.from(centers[index % 40] as Float32Array, (value) => value + 0.35 * next()));
}
