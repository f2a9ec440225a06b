import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextItem } from '../../pack.js';
import { rerankItems } from '../rerank.js';
import type { Reranker } from '../spec.js';

export interface RerankerHarness {
  reranker: Reranker;
  cleanup?: () => Promise<void>;
}

function item(path: string, text: string, score: number): ContextItem {
  return { path, startLine: 1, endLine: text.split('\n').length, text, score };
}

/** Four snippets in retrieval order; the refund ones answer "refund the charge". */
const documents = [
  item('src/cats.ts', 'export function sleep(cat: Cat) {\n  cat.sofa = true;\n}', 0.9),
  item('src/refund.ts', 'export function refundCharge(charge: Charge) {\n  return issueRefund(charge.id);\n}', 0.7),
  item('src/json.ts', 'export function parseJsonFile(path: string) {\n  return JSON.parse(read(path));\n}', 0.5),
  item('src/refund-policy.md', 'Refund the charge within 30 days of purchase.', 0.4),
];

/**
 * What every reranker must do (the embedder and store contracts' pattern): declare the v1
 * spec; answer a ranking that core accepts (each index of the documents at most once, finite
 * scores) for one or many documents; keep at most top-k after core; stop on an aborted
 * signal. `relevance` rerankers must also put a relevant snippet above an unrelated one that
 * retrieval ranked higher.
 */
export function describeRerankerContract(name: string, open: () => Promise<RerankerHarness>, options: { relevance: boolean }): void {
  describe(`reranker contract: ${name}`, () => {
    let harness: RerankerHarness;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => {
      await harness.cleanup?.();
    });

    it('declares the v1 spec', () => {
      const { reranker } = harness;
      expect(reranker.specificationVersion).toBe('v1');
      expect(reranker.provider).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(typeof reranker.modelId).toBe('string');
      expect(reranker.modelId.length).toBeGreaterThan(0);
    });

    it('answers a ranking of the documents it was given, which core keeps to top-k', async () => {
      const raw = await harness.reranker.doRerank({ query: 'refund the charge', documents, topK: 4 });
      expect(Array.isArray(raw.ranking)).toBe(true);
      expect(raw.ranking.length).toBeGreaterThan(0);
      expect(new Set(raw.ranking.map((entry) => entry.index)).size).toBe(raw.ranking.length);
      for (const entry of raw.ranking) {
        expect(Number.isInteger(entry.index) && entry.index >= 0 && entry.index < documents.length).toBe(true);
        expect(Number.isFinite(entry.score)).toBe(true);
      }
      const kept = await rerankItems(harness.reranker, 'refund the charge', documents, { topK: 2 });
      expect(kept.items.length).toBeLessThanOrEqual(2);
      for (const chosen of kept.items) expect(documents.map((document) => document.path)).toContain(chosen.path);
      for (let index = 1; index < kept.items.length; index++) expect((kept.items[index - 1] as ContextItem).score).toBeGreaterThanOrEqual((kept.items[index] as ContextItem).score);
    });

    it('ranks a single document', async () => {
      const kept = await rerankItems(harness.reranker, 'refund the charge', documents.slice(1, 2), { topK: 5 });
      expect(kept.items.map((chosen) => chosen.path)).toEqual(['src/refund.ts']);
    });

    it('stops on an aborted signal', async () => {
      const controller = new AbortController();
      controller.abort(new Error('cancelled by the test'));
      await expect(harness.reranker.doRerank({ query: 'refund the charge', documents, topK: 2, abortSignal: controller.signal })).rejects.toBeDefined();
    });

    if (options.relevance) {
      it('puts a relevant snippet above an unrelated one retrieval ranked higher', async () => {
        const kept = await rerankItems(harness.reranker, 'refund the charge', documents, { topK: 4 });
        const rank = (path: string) => kept.items.findIndex((chosen) => chosen.path === path);
        expect(rank('src/refund.ts')).toBeGreaterThanOrEqual(0);
        expect(rank('src/cats.ts') === -1 || rank('src/refund.ts') < rank('src/cats.ts')).toBe(true);
      });
    }
  });
}
