import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ChunkRecord, ScoredRow, Store } from '../../store/spec.js';
import { rankPool, type PoolQuery, type PoolSources } from '../rank-pool.js';
import { featuresWhile } from './early-features.js';
import { featureContext, textFeatures } from './features.js';

const words = ['parse', 'config', 'file', 'load', 'yaml', 'schema', 'error', 'path', 'read', 'write'];

/** 120 chunks over 40 files, each text a different mix of the words above. */
const records: ChunkRecord[] = Array.from({ length: 120 }, (_, index) => {
  const text = Array.from({ length: 6 + (index % 7) }, (_, at) => words[(index * 7 + at * 3) % words.length]).join(' ');
  return {
    rowId: index + 1,
    chunkId: `c${index}`,
    contentHash: `h${index}`,
    path: `src/${words[index % words.length]}/part${index % 40}.ts`,
    startLine: 1,
    endLine: 3,
    language: 'typescript',
    kind: 'code',
    headingPath: [],
    symbols: [`${words[index % words.length]}${words[(index + 3) % words.length]}`],
    symbol: `${words[index % words.length]}_${words[(index + 3) % words.length]}`,
    text: `// ${words[(index + 5) % words.length]} the ${words[(index + 1) % words.length]}\n${text}`,
  };
});
const byId = new Map(records.map((record) => [record.rowId, record]));
const terms = ['pars', 'config', 'file'];
const statistics = { chunks: records.length, frequencies: new Map(terms.map((term, index) => [term, 10 + index * 20])) };

describe('features gathered while the vector search is out', () => {
  it('stop when the search is in, and equal the features computed after fusion', async () => {
    const context = featureContext({ terms, sequence: ['pars', 'config', 'file'], statistics });
    let turns = 0;
    const asked: number[][] = [];
    const early = await featuresWhile(
      () => ++turns <= 12,
      records.map((record) => record.rowId),
      context,
      async (rowIds) => {
        asked.push(rowIds);
        return rowIds.map((rowId) => byId.get(rowId) as ChunkRecord);
      },
    );
    // Some rows measured, not all: it stopped when pending() turned false.
    expect(early.text.size).toBeGreaterThan(2);
    expect(early.text.size).toBeLessThan(records.length);
    expect(asked.flat().length).toBeLessThan(records.length);
    for (const [rowId, text] of early.text) expect(text).toEqual(textFeatures(context, byId.get(rowId) as ChunkRecord));
    for (const rowId of early.records.keys()) expect(asked.flat()).toContain(rowId);

    // A search already in: nothing is fetched.
    const none = await featuresWhile(
      () => false,
      [1, 2, 3],
      context,
      async () => {
        throw new Error('not asked');
      },
    );
    expect(none.records.size).toBe(0);
  });

  it("take the search's reply between rows when told how, without waiting for an event loop turn", async () => {
    const context = featureContext({ terms, sequence: ['pars', 'config', 'file'], statistics });
    // The reply "arrives" once three rows are measured; it is seen only through takeReplies.
    let answered = false;
    let taken = 0;
    let turns = 0;
    let counting = true;
    const countTurns = (): void => {
      if (!counting) return;
      turns++;
      setImmediate(countTurns);
    };
    setImmediate(countTurns);
    const early = await featuresWhile(
      () => !answered,
      records.map((record) => record.rowId),
      context,
      async (rowIds) => rowIds.map((rowId) => byId.get(rowId) as ChunkRecord),
      () => {
        if (++taken > 3) answered = true;
      },
    );
    counting = false;
    expect(early.text.size).toBe(3);
    expect(taken).toBe(4); // once before the first row, then after each
    expect(turns).toBe(0); // no turn of the event loop was waited for
  });

  /** The ranked hybrid query both tests ask. */
  const poolQuery = (explain: boolean): PoolQuery => ({
    query: 'parse config file',
    mode: 'hybrid',
    files: false,
    explain,
    useRanker: true,
    terms,
    text: 'parse config file',
    languages: [],
    vector: Float32Array.of(1, 0),
    named: undefined,
    filter: undefined,
  });

  /**
   * A store and retriever over `records`; the vector search answers after `delayTurns`
   * event-loop turns, deleting row `deletes` (a write committed meanwhile) just before it does.
   */
  function pool(delayTurns: number, deletes?: number) {
    const fetched: number[] = [];
    const live = new Map(byId);
    let writes = 0;
    const store = {
      getCatalogEntries: async () => new Map(),
      findMentions: async () => [],
      changeToken: async () => String(writes),
      getChunks: async (rowIds: number[]) => {
        fetched.push(...rowIds);
        return rowIds.flatMap((rowId) => (live.has(rowId) ? [live.get(rowId) as ChunkRecord] : []));
      },
    } as unknown as Store;
    const lexical: ScoredRow[] = records.slice(0, 90).map((record, index) => ({ rowId: record.rowId, score: 20 - index / 10, path: record.path }));
    const vector: ScoredRow[] = records.slice(30, 120).map((record, index) => ({ rowId: record.rowId, score: 0.9 - index / 200, path: record.path }));
    const sources: PoolSources = {
      store,
      defaults: { weights: { lexical: 1, vector: 1, mention: 1 }, fusion: 'weighted', ranker: 'default' },
      retriever: {
        lexical: async () => lexical,
        vector: async () => {
          for (let turn = 0; turn < delayTurns; turn++) await nextTurn();
          if (deletes !== undefined && live.delete(deletes)) writes++;
          return vector;
        },
        vectorOffThread: true,
        termStatistics: async () => statistics,
      },
    };
    return { sources, fetched };
  }

  it('leave the ranking as it is, and fetch no row twice', async () => {
    const query = poolQuery(true);
    const at = pool(0);
    const late = pool(30);
    const now = await rankPool(at.sources, query, 100);
    const waited = await rankPool(late.sources, query, 100);
    expect(waited.ranked.map((candidate) => [candidate.rowId, candidate.score])).toEqual(now.ranked.map((candidate) => [candidate.rowId, candidate.score]));
    expect(waited.explanations).toEqual(now.explanations);
    expect([...waited.records.keys()].sort((a, b) => a - b)).toEqual([...now.records.keys()].sort((a, b) => a - b));
    // The slow vector search left time for the lexical head; each row was still fetched once.
    expect(new Set(late.fetched).size).toBe(late.fetched.length);
    expect(at.fetched.length).toBe(now.records.size);
    expect(late.fetched.length).toBeGreaterThanOrEqual(now.records.size);
    expect(late.fetched.slice(0, 8)).toEqual(records.slice(0, 8).map((record) => record.rowId));
  });

  it('drop a prefetched row that a write deleted while the vector search was out', async () => {
    const query = poolQuery(false);
    const at = await rankPool(pool(0, 1).sources, query, 100);
    const late = pool(30, 1);
    const waited = await rankPool(late.sources, query, 100);
    expect(late.fetched.slice(0, 8)).toContain(1); // row 1 was prefetched before it was deleted
    expect(waited.records.has(1)).toBe(false);
    expect(waited.ranked.map((candidate) => [candidate.rowId, candidate.score])).toEqual(at.ranked.map((candidate) => [candidate.rowId, candidate.score]));
  });
});
