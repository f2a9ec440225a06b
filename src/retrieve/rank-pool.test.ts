import { describe, expect, it } from 'vitest';
import type { ScoredRow, Store } from '../store/spec.js';
import { rankPool, type PoolQuery, type PoolSources } from './rank-pool.js';

const rows = (prefix: string): ScoredRow[] => [1, 2, 3].map((rowId) => ({ rowId: prefix === 'v' ? rowId + 10 : rowId, score: 1 / rowId, path: `${prefix}/file${rowId}.ts` }));

function query(mode: PoolQuery['mode']): PoolQuery {
  return {
    query: 'alpha beta',
    mode,
    files: false,
    explain: false,
    useRanker: false,
    terms: ['alpha', 'beta'],
    text: 'alpha beta',
    languages: [],
    vector: Float32Array.of(1, 0),
    named: undefined,
    filter: undefined,
  };
}

/** A retriever whose calls are logged; the vector search answers when `answer` is called. */
function sources(lexical: () => Promise<ScoredRow[]>) {
  const calls: string[] = [];
  let answer: (outcome: ScoredRow[] | Error) => void = () => undefined;
  const store = { getCatalogEntries: async () => new Map(), getChunks: async () => [], findMentions: async () => [] } as unknown as Store;
  const pool: PoolSources = {
    store,
    defaults: { weights: { lexical: 1, vector: 1, mention: 1 }, fusion: 'weighted' },
    retriever: {
      lexical: () => {
        calls.push('lexical');
        return lexical();
      },
      vector: (_vector, _limit, _filter, options) => {
        calls.push(`vector beside=${options?.beside === true}`);
        return new Promise((resolve, reject) => {
          answer = (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome));
        });
      },
    },
  };
  return { pool, calls, answer: (outcome: ScoredRow[] | Error) => answer(outcome) };
}

describe('rankPool', () => {
  it('starts the vector search before BM25 in a hybrid search, so the two may run at once', async () => {
    const { pool, calls, answer } = sources(async () => rows('l'));
    const ranked = rankPool(pool, query('hybrid'), 10);
    await Promise.resolve();
    expect(calls).toEqual(['vector beside=true', 'lexical']);
    answer(rows('v'));
    const { ranked: candidates, vectorRan } = await ranked;
    expect(vectorRan).toBe(true);
    expect(candidates.map((candidate) => candidate.rowId).sort((a, b) => a - b)).toEqual([1, 2, 3, 11, 12, 13]);

    // A vector search alone has nothing to overlap: it is not asked to run beside.
    const alone = sources(async () => []);
    const vectorOnly = rankPool(alone.pool, query('vector'), 10);
    alone.answer(rows('v'));
    await vectorOnly;
    expect(alone.calls).toEqual(['vector beside=false']);
  });

  it('fails with the lexical error while the vector search is out, and its later failure is not left unhandled', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const { pool, answer } = sources(async () => {
        throw new Error('lexical broke');
      });
      await expect(rankPool(pool, query('hybrid'), 10)).rejects.toThrow('lexical broke');
      answer(new Error('vector broke too'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
