import { LociError, throwIfAborted } from '../../errors/index.js';
import type { ContextItem } from '../pack.js';
import { rerankerId, type Reranker } from './spec.js';

export interface RerankOptions {
  /** How many to keep (best first). */
  topK: number;
  signal?: AbortSignal;
}

/**
 * Reorders retrieved items with a reranker: the one place that calls `doRerank`, checks what
 * it answered (indexes in range, each once, finite scores), orders by score (ties keep the
 * retrieval order) and keeps the best `topK`. A malformed answer is an error, never a guess.
 */
export async function rerankItems(reranker: Reranker, query: string, items: readonly ContextItem[], options: RerankOptions): Promise<{ items: ContextItem[]; warnings: string[] }> {
  throwIfAborted(options.signal);
  if (items.length === 0 || options.topK <= 0) return { items: [], warnings: [] };
  const documents = items.map((item) => ({ path: item.path, text: item.text, score: item.score }));
  const result = await reranker.doRerank({ query, documents, topK: options.topK, ...(options.signal ? { abortSignal: options.signal } : {}) });
  throwIfAborted(options.signal);
  const seen = new Set<number>();
  const ranked: Array<{ index: number; score: number }> = [];
  for (const entry of Array.isArray(result?.ranking) ? result.ranking : malformed(reranker, 'no ranking list')) {
    const { index, score } = entry ?? {};
    if (!Number.isInteger(index) || index < 0 || index >= items.length) malformed(reranker, `index ${JSON.stringify(index)} is not one of the ${items.length} items`);
    if (typeof score !== 'number' || !Number.isFinite(score)) malformed(reranker, `score ${JSON.stringify(score)} for item ${index} is not a finite number`);
    if (seen.has(index)) malformed(reranker, `item ${index} is ranked twice`);
    seen.add(index);
    ranked.push({ index, score });
  }
  ranked.sort((a, b) => b.score - a.score || a.index - b.index);
  return {
    items: ranked.slice(0, options.topK).map(({ index, score }) => ({ ...(items[index] as ContextItem), score })),
    warnings: result.warnings ?? [],
  };
}

function malformed(reranker: Reranker, why: string): never {
  throw new LociError('LLM_FAILED', `The reranker ${rerankerId(reranker)} answered a malformed ranking: ${why}.`, {
    hint: 'A reranker returns { ranking: [{ index, score }] } with each index of the documents it was given at most once.',
  });
}
