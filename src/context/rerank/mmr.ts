import type { Reranker } from './spec.js';

/**
 * Maximal marginal relevance: picks items one by one, trading relevance (the retrieval
 * score, min-max normalised) against similarity to what is already picked, so near-copies
 * of one snippet do not crowd out other files. `lambda` 1 is pure relevance.
 */
export function mmrReranker(embed: (texts: string[], signal?: AbortSignal) => Promise<Float32Array[]>, lambda = 0.7): Reranker {
  return {
    specificationVersion: 'v1',
    provider: 'mmr',
    modelId: String(lambda),
    async doRerank({ documents: items, topK, abortSignal }) {
      if (items.length <= 1) return { ranking: items.map((item, index) => ({ index, score: item.score })) };
      const vectors = (
        await embed(
          items.map((item) => item.text),
          abortSignal,
        )
      ).map(normalize);
      const scores = items.map((item) => item.score);
      const low = Math.min(...scores);
      const high = Math.max(...scores);
      const relevance = scores.map((score) => (high > low ? (score - low) / (high - low) : 1));
      const picked: number[] = [];
      const remaining = new Set(items.map((_, index) => index));
      const ranking: Array<{ index: number; score: number }> = [];
      while (ranking.length < topK && remaining.size > 0) {
        let best = -1;
        let bestValue = -Infinity;
        for (const candidate of remaining) {
          let redundancy = 0;
          for (const chosen of picked) redundancy = Math.max(redundancy, dot(vectors[candidate] as Float32Array, vectors[chosen] as Float32Array));
          const value = lambda * (relevance[candidate] as number) - (1 - lambda) * redundancy;
          if (value > bestValue) {
            bestValue = value;
            best = candidate;
          }
        }
        remaining.delete(best);
        picked.push(best);
        ranking.push({ index: best, score: bestValue });
      }
      return { ranking };
    },
  };
}

function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return vector.map((value) => value * scale);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}
