import { LociError } from '../../errors/index.js';
import type { ContextItem } from '../pack.js';
import type { Reranker } from './spec.js';

export interface ApiRerankerOptions {
  /** `cohere` (POST {base}/rerank, results[].relevance_score) or `voyage` (POST {base}/rerank, data[].relevance_score). */
  format: 'cohere' | 'voyage';
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** A hosted reranker speaking Cohere's or Voyage's wire format (or a local server that copies one). */
export function apiReranker(options: ApiRerankerOptions): Reranker {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/rerank`;
  return {
    id: `${options.format}:${options.model}`,
    async rerank(query, items, rerankOptions) {
      if (items.length === 0) return [];
      const documents = items.map((item) => `${item.path}\n${item.text}`);
      const body =
        options.format === 'cohere'
          ? { model: options.model, query, documents, top_n: Math.min(rerankOptions.topK, items.length) }
          : { model: options.model, query, documents, top_k: Math.min(rerankOptions.topK, items.length) };
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify(body),
          signal: rerankOptions.signal ? AbortSignal.any([rerankOptions.signal, timeout]) : timeout,
        });
      } catch (error) {
        if (rerankOptions.signal?.aborted) throw new LociError('ABORTED', 'The rerank was cancelled.', { cause: error });
        throw new LociError('LLM_FAILED', `Cannot reach the ${options.format} reranker at ${url} (${(error as Error).message}).`, { cause: error });
      }
      if (!response.ok) throw new LociError(response.status === 401 || response.status === 403 ? 'LLM_AUTH' : 'LLM_FAILED', `The ${options.format} reranker answered HTTP ${response.status}.`);
      const reply = (await response.json().catch(() => undefined)) as { results?: unknown; data?: unknown } | undefined;
      const list = (options.format === 'cohere' ? reply?.results : reply?.data) as Array<{ index?: unknown; relevance_score?: unknown }> | undefined;
      if (!Array.isArray(list)) throw new LociError('LLM_FAILED', `The ${options.format} reranker sent a malformed reply (no ${options.format === 'cohere' ? 'results' : 'data'} list).`);
      const out: ContextItem[] = [];
      for (const entry of list) {
        if (typeof entry.index !== 'number' || typeof entry.relevance_score !== 'number' || !items[entry.index]) {
          throw new LociError('LLM_FAILED', `The ${options.format} reranker sent a malformed entry: ${JSON.stringify(entry).slice(0, 200)}.`);
        }
        out.push({ ...(items[entry.index] as ContextItem), score: entry.relevance_score });
      }
      return out.sort((a, b) => b.score - a.score).slice(0, rerankOptions.topK);
    },
  };
}
