import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoci, type Loci } from '../engine/create-loci.js';
import type { MemoryInput } from './spec.js';
import { LociError } from '../errors/index.js';
import { recall as recallRecords, type RecallContext } from './recall.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2025, 4, 1, 12);
const opened: Array<{ loci: Loci; dir: string }> = [];

afterEach(async () => {
  for (const { loci, dir } of opened.splice(0)) {
    await loci.close();
    await rm(dir, { recursive: true, force: true });
  }
});

/** Memory with the context window off, so each record is found by its own words only. */
async function memoryWith(weights: Record<string, number> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'loci-recall-'));
  const loci = createLoci({ root: dir, config: { memory: { contextWindow: 0, weights } } });
  opened.push({ loci, dir });
  return loci.memory();
}

// The same sentence was said in two sessions ten days apart. Only the older session also
// holds another record about the query; the newer one has small talk around it.
const sessions: MemoryInput[] = [
  { namespace: 'chat', id: 'old-1', text: 'The budget spreadsheet for the offsite is shared now', time: T0 },
  { namespace: 'chat', id: 'old-2', text: 'Budget meeting moved to Thursday', time: T0 + 5 * 60 * 1000 },
  { namespace: 'chat', id: 'new-1', text: 'Lunch at the noodle place was great', time: T0 + 10 * DAY },
  { namespace: 'chat', id: 'new-2', text: 'Budget meeting moved to Thursday', time: T0 + 10 * DAY + 5 * 60 * 1000 },
];

describe('session signals in hybrid recall', () => {
  it('ranks a record whose session holds other relevant records above an equal lone one', async () => {
    const memory = await memoryWith();
    await memory.addMany(sessions, { dedupe: false });
    const hits = await memory.recall('budget meeting', { topK: 4, now: T0 + 11 * DAY });
    const ids = hits.map((hit) => hit.record.id);
    expect(ids.indexOf('old-2')).toBeLessThan(ids.indexOf('new-2'));
    const old = hits.find((hit) => hit.record.id === 'old-2');
    const lone = hits.find((hit) => hit.record.id === 'new-2');
    // Both sessions have two candidates among the first 20; only the old one's other record is relevant.
    expect(old?.signals.session).toBeGreaterThan(lone?.signals.session ?? 0);
    expect(old?.signals.sessionHits).toBe(2);
    expect(lone?.signals.sessionHits).toBe(2);
    expect(old?.signals.length).toBe(lone?.signals.length);
  });

  it('without them, the tie goes to the newer record (so the test above measures them)', async () => {
    const memory = await memoryWith({ session: 0, sessionHits: 0 });
    await memory.addMany(sessions, { dedupe: false });
    const ids = (await memory.recall('budget meeting', { topK: 4, now: T0 + 11 * DAY })).map((hit) => hit.record.id);
    expect(ids.indexOf('new-2')).toBeLessThan(ids.indexOf('old-2'));
  });

  it('adds the length prior, weight × log(1 + tokens), to every hybrid hit', async () => {
    const records: MemoryInput[] = [
      { namespace: 'a', id: 'short', text: 'Deploy failed.', time: T0 },
      { namespace: 'b', id: 'long', text: 'Deploy failed: the migration timed out while the replica lagged behind the primary by minutes', time: T0 + 30 * DAY },
    ];
    const scores = async (length: number) => {
      const memory = await memoryWith({ session: 0, sessionHits: 0, length });
      await memory.addMany(records, { dedupe: false });
      return new Map((await memory.recall('deploy failed', { topK: 2, now: T0 + 31 * DAY })).map((hit) => [hit.record.id, hit]));
    };
    const without = await scores(0);
    const withPrior = await scores(0.5);
    expect(withPrior.get('short')?.signals.length).toBe(2);
    expect(withPrior.get('long')?.signals.length).toBeGreaterThan(10);
    for (const id of ['short', 'long']) {
      const hit = withPrior.get(id);
      expect(hit?.score).toBeCloseTo((without.get(id)?.score ?? 0) + 0.5 * Math.log(1 + (hit?.signals.length ?? 0)), 9);
    }
  });

  it('keeps single-signal recall to its one signal, and knowledge sections to their relevance', async () => {
    const memory = await memoryWith();
    await memory.addMany(sessions, { dedupe: false });
    for (const hit of await memory.recall('budget meeting', { topK: 4, mode: 'lexical', now: T0 + 11 * DAY })) {
      expect(hit.signals.session).toBeUndefined();
      expect(hit.signals.length).toBeUndefined();
    }
    await memory.addMany(
      [
        { namespace: 'docs', kind: 'knowledge', id: 'k1', text: 'Budget approvals need two signatures', time: T0 },
        { namespace: 'docs', kind: 'knowledge', id: 'k2', text: 'Meeting rooms are booked through the portal', time: T0 },
      ],
      { dedupe: false },
    );
    const knowledge = await memory.recall('budget meeting', { topK: 4, namespaces: ['docs'], now: T0 + 11 * DAY });
    expect(knowledge.length).toBeGreaterThan(0);
    for (const hit of knowledge) expect(hit.signals.session ?? hit.signals.sessionHits ?? hit.signals.length).toBeUndefined();
  });

  it('explains every score: the contributions sum to it, weight × normalised value each', async () => {
    const memory = await memoryWith();
    await memory.addMany(sessions, { dedupe: false });
    const hits = await memory.recall('budget meeting', { topK: 4, now: T0 + 11 * DAY, explain: true });
    expect(hits.length).toBe(4);
    for (const hit of hits) {
      const parts = Object.values(hit.explanation ?? {});
      expect(parts.length).toBeGreaterThan(2);
      expect(parts.reduce((sum, part) => sum + part.contribution, 0)).toBeCloseTo(hit.score, 12);
      for (const part of parts) expect(part.contribution).toBeCloseTo(part.weight * part.normalized, 12);
      expect(hit.explanation?.length?.normalized).toBeCloseTo(Math.log(1 + (hit.signals.length ?? 0)), 12);
      expect(hit.explanation?.recency?.weight).toBe(0.1);
    }
    expect((await memory.recall('budget meeting', { topK: 4, now: T0 + 11 * DAY }))[0]?.explanation).toBeUndefined();
  });
});

describe('recall signals', () => {
  const weights = { lexical: 1, vector: 1, recency: 0, temporal: 0, outcome: 0, length: 0, session: 0, sessionHits: 0 };
  /** A remote-like embedder: its answer waits on `reply`; `calls` logs when each part starts. */
  const setup = (options: { lexicalFails?: boolean; embedFails?: boolean } = {}) => {
    const calls: string[] = [];
    const signals: Array<AbortSignal | undefined> = [];
    let answer: () => void = () => undefined;
    const reply = new Promise<void>((resolve) => (answer = resolve));
    const model = {
      specificationVersion: 'v1' as const,
      provider: 'test',
      modelId: 'slow',
      dimensions: 2,
      maxEmbeddingsPerCall: 8,
      supportsParallelCalls: true,
      async doEmbed(embedOptions: { abortSignal?: AbortSignal }) {
        calls.push('embed');
        signals.push(embedOptions.abortSignal);
        await reply;
        if (options.embedFails) throw new LociError('EMBEDDER_FAILED', 'the embedder is down');
        return { embeddings: [Float32Array.from([1, 0])] };
      },
    };
    const row = { rowId: 1, score: 1, path: 'chat/#r1' };
    const context: RecallContext = {
      lookup: async () => new Map(),
      model,
      weights,
      recencyHalfLifeMs: DAY,
      retriever: {
        path: () => ({ index: 'memory', lexical: 'bm25', vectors: 'exact' }),
        async lexical() {
          calls.push('lexical');
          answer();
          if (options.lexicalFails) throw new Error('lexical broke');
          return [row];
        },
        async vector() {
          calls.push('vector');
          return [row];
        },
      },
    };
    return { calls, signals, context };
  };

  it('starts embedding the query before the lexical search, so a remote embedder answers meanwhile', async () => {
    const { calls, context } = setup();
    const result = await recallRecords(context, 'budget meeting');
    expect(calls).toEqual(['embed', 'lexical', 'vector']);
    expect(result.degraded).toBe(false);
  });

  it('reports a lexical failure while the embedding is out (stopping it, leaving no unhandled rejection); an embedder failure degrades to lexical', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const failing = setup({ lexicalFails: true, embedFails: true });
      await expect(recallRecords(failing.context, 'budget meeting')).rejects.toThrow('lexical broke');
      expect(failing.signals[0]?.aborted).toBe(true); // the embedding is stopped
      const degraded = setup({ embedFails: true });
      const result = await recallRecords(degraded.context, 'budget meeting');
      expect(result.degradedParts).toEqual(['vector']);
      expect(result.warnings.join(' ')).toContain('the embedder is down');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
