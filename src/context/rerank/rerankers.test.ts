import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { throwIfAborted } from '../../errors/index.js';
import { openAICompatibleChat } from '../../llm/openai-compatible.js';
import { FakeChatServer } from '../../llm/test-support/fake-chat-server.js';
import type { ContextItem } from '../pack.js';
import { apiReranker } from './api-reranker.js';
import { llmYesNoReranker } from './llm-yes-no.js';
import { mmrReranker } from './mmr.js';
import { rerankItems } from './rerank.js';
import type { Reranker } from './spec.js';
import { describeRerankerContract } from './test-support/reranker-contract.js';

/** Word-overlap vectors: enough for MMR to see near-copies. */
const embed = async (texts: string[], signal?: AbortSignal) => {
  throwIfAborted(signal);
  return texts.map((text) => Float32Array.from(['refund', 'charge', 'cat', 'json', 'parse'].map((word) => (text.toLowerCase().includes(word) ? 1 : 0.01))));
};

describeRerankerContract('mmr', async () => ({ reranker: mmrReranker(embed, 0.7) }), { relevance: false });

describeRerankerContract(
  'llm-yes-no',
  async () => {
    const server = new FakeChatServer();
    await server.start();
    server.answer = (request) => (/Snippet:\n```\S*refund/.test(request.body.messages?.[1]?.content ?? '') ? 'Yes' : 'No');
    return { reranker: llmYesNoReranker(openAICompatibleChat({ baseUrl: server.baseUrl, model: 'tiny' })), cleanup: () => server.stop() };
  },
  { relevance: true },
);

for (const format of ['cohere', 'voyage'] as const) {
  describeRerankerContract(
    format,
    async () => {
      const server = new FakeChatServer();
      await server.start();
      return { reranker: apiReranker({ format, baseUrl: format === 'voyage' ? `${server.baseUrl}/voyage` : server.baseUrl, model: 'rerank-test' }), cleanup: () => server.stop() };
    },
    { relevance: true },
  );
}

describeRerankerContract(
  'cross-encoder (tiny ONNX model built by the test)',
  async () => {
    const { writeTinyModelFolder } = await import('../../embed/local/test-support/tiny-model-folder.js');
    const { crossEncoderReranker } = await import('./cross-encoder.js');
    const workspace = await mkdtemp(join(tmpdir(), 'loci-cross-encoder-'));
    const folder = join(workspace, 'model');
    await writeTinyModelFolder(folder, { refunds: ['refund', 'charge', 'issue'], cats: ['cat', 'sofa', 'sleep'], files: ['json', 'parse', 'file'] }, 8, 'cross-encoder');
    return { reranker: await crossEncoderReranker({ model: folder, dtype: 'fp32', batchSize: 2 }), cleanup: () => rm(workspace, { recursive: true, force: true }) };
  },
  { relevance: true },
);

describe('rerankItems (core)', () => {
  const items: ContextItem[] = ['a.ts', 'b.ts', 'c.ts'].map((path, index) => ({ path, startLine: 1, endLine: 1, text: path, score: 1 - index / 10 }));
  const answering = (ranking: unknown): Reranker => ({ specificationVersion: 'v1', provider: 'fake', modelId: 'm', doRerank: async () => ({ ranking }) as never });

  it('orders by score, ties in retrieval order, and keeps top-k', async () => {
    const kept = await rerankItems(
      answering([
        { index: 2, score: 0.5 },
        { index: 0, score: 0.9 },
        { index: 1, score: 0.5 },
      ]),
      'q',
      items,
      { topK: 2 },
    );
    expect(kept.items.map((chosen) => [chosen.path, chosen.score])).toEqual([
      ['a.ts', 0.9],
      ['b.ts', 0.5],
    ]);
  });

  it('refuses a malformed ranking with the reason, never guesses', async () => {
    for (const [ranking, why] of [
      [undefined, /no ranking list/],
      [[{ index: 3, score: 1 }], /index 3 is not one of the 3 items/],
      [[{ index: 1.5, score: 1 }], /index 1.5/],
      [[{ index: 0, score: Number.NaN }], /score null for item 0 is not a finite number/],
      [
        [
          { index: 0, score: 1 },
          { index: 0, score: 2 },
        ],
        /item 0 is ranked twice/,
      ],
    ] as const) {
      await expect(rerankItems(answering(ranking), 'q', items, { topK: 3 })).rejects.toMatchObject({ code: 'LLM_FAILED', message: expect.stringMatching(why) });
    }
  });
});
