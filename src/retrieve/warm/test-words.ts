/** Seeded test data for the warm-index tests: a Zipf-like vocabulary, so scores rarely tie. */
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
