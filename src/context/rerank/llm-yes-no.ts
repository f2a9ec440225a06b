import { createHash } from 'node:crypto';
import { throwIfAborted } from '../../errors/index.js';
import type { ChatModel } from '../../llm/spec.js';
import type { RerankDocument, Reranker } from './spec.js';

const SYSTEM =
  'You are an expert software developer responsible for helping detect whether the retrieved snippet of code is relevant to the query. ' +
  'For a given input, you need to output a single word: "Yes" or "No" indicating the retrieved snippet is relevant to the query.';

/**
 * Continue's LLM relevance reranker: one yes/no question per snippet, asked in parallel
 * batches, answers cached by (model, query, snippet). "Yes" items come first, each group
 * keeping the retrieval order.
 */
export function llmYesNoReranker(model: ChatModel, options: { concurrency?: number; cache?: Map<string, boolean> } = {}): Reranker {
  const cache = options.cache ?? new Map<string, boolean>();
  const concurrency = options.concurrency ?? 4;
  return {
    specificationVersion: 'v1',
    provider: 'llm-yes-no',
    modelId: model.modelId,
    async doRerank({ query, documents: items, abortSignal }) {
      const verdicts = new Array<boolean>(items.length);
      let next = 0;
      const worker = async () => {
        while (next < items.length) {
          const index = next++;
          throwIfAborted(abortSignal);
          const item = items[index] as RerankDocument;
          const key = createHash('sha256').update(`${model.modelId}\n${query}\n${item.path}\n${item.text}`).digest('hex');
          let verdict = cache.get(key);
          if (verdict === undefined) {
            const { text } = await model.complete({
              messages: [
                { role: 'system', content: SYSTEM },
                { role: 'user', content: `Query: ${query}\n\nSnippet:\n\`\`\`${item.path}\n${item.text}\n\`\`\`\n\nIs the snippet relevant to the query? Answer Yes or No.` },
              ],
              temperature: 0,
              maxTokens: 2,
              ...(abortSignal ? { abortSignal } : {}),
            });
            verdict = /^\W*yes\b/i.test(text.trim());
            cache.set(key, verdict);
          }
          verdicts[index] = verdict;
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
      const n = items.length;
      return { ranking: items.map((_, index) => ({ index, score: (verdicts[index] ? 1 : 0) + (n - index) / (n + 1) / 2 })) };
    },
  };
}
