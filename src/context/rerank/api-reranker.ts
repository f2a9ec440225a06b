import { LociError } from '../../errors/index.js';
import { attemptsExhausted, DEFAULT_RETRY_POLICY, redactUrl, sendJson, withRetry } from '../../http-client/index.js';
import type { Reranker } from './spec.js';

export interface ApiRerankerOptions {
  /** `cohere` (POST {base}/rerank, results[].relevance_score) or `voyage` (POST {base}/rerank, data[].relevance_score). */
  format: 'cohere' | 'voyage';
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Attempts for 429, 5xx and timeouts (default 2: a context build would rather go on without reranking). */
  maxAttempts?: number;
  retryBaseMs?: number;
}

/** Hosted rerankers are models behind an API: their failures use the chat family's codes. */
const RERANKER_ERRORS = { failed: 'LLM_FAILED', auth: 'LLM_AUTH' } as const;

/** A hosted reranker speaking Cohere's or Voyage's wire format (or a local server that copies one). */
export function apiReranker(options: ApiRerankerOptions): Reranker {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/rerank`;
  return {
    specificationVersion: 'v1',
    provider: options.format,
    modelId: options.model,
    async doRerank({ query, documents: items, topK, abortSignal }) {
      const documents = items.map((item) => `${item.path}\n${item.text}`);
      const body =
        options.format === 'cohere' ? { model: options.model, query, documents, top_n: Math.min(topK, items.length) } : { model: options.model, query, documents, top_k: Math.min(topK, items.length) };
      const label = `the ${options.format} reranker ${options.model} at ${redactUrl(options.baseUrl)}`;
      const reply = (await withRetry(
        () =>
          sendJson({
            label,
            url,
            body,
            timeoutMs: options.timeoutMs ?? 30_000,
            codes: RERANKER_ERRORS,
            headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
            authHint: 'Set a valid key in LOCI_RERANK_API_KEY.',
            unreachableHint: 'Check LOCI_RERANK_BASE_URL and that the reranker is running.',
            ...(abortSignal ? { abortSignal } : {}),
          }),
        {
          policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: options.maxAttempts ?? 2, baseDelayMs: options.retryBaseMs ?? DEFAULT_RETRY_POLICY.baseDelayMs },
          exhausted: attemptsExhausted(RERANKER_ERRORS, label),
          ...(abortSignal ? { abortSignal } : {}),
        },
      )) as { results?: unknown; data?: unknown } | undefined;
      const list = (options.format === 'cohere' ? reply?.results : reply?.data) as Array<{ index?: unknown; relevance_score?: unknown }> | undefined;
      if (!Array.isArray(list)) throw new LociError('LLM_FAILED', `The ${options.format} reranker sent a malformed reply (no ${options.format === 'cohere' ? 'results' : 'data'} list).`);
      const ranking: Array<{ index: number; score: number }> = [];
      for (const entry of list) {
        if (typeof entry.index !== 'number' || typeof entry.relevance_score !== 'number' || !items[entry.index]) {
          throw new LociError('LLM_FAILED', `The ${options.format} reranker sent a malformed entry: ${JSON.stringify(entry).slice(0, 200)}.`);
        }
        ranking.push({ index: entry.index, score: entry.relevance_score });
      }
      return { ranking };
    },
  };
}
