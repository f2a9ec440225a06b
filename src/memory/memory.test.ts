import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoci, type Loci } from '../engine/create-loci.js';
import { LociError } from '../errors/index.js';
import type { Memory } from './memory.js';
import { turnRecordInput } from './record-input.js';
import { MAX_RECORD_CHARS } from './records.js';
import type { InteractionFields } from './spec.js';
import type { MemoryExport } from './transfer.js';

let workspace: string;
let loci: Loci;
let memory: Memory;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-memory-'));
  loci = createLoci({ root: workspace });
  memory = await loci.memory();
});

afterEach(async () => {
  await loci.close();
  await rm(workspace, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof LociError ? error.code : `not a LociError: ${String(error)}`;
  }
  return 'resolved';
}

describe('what a failed add leaves', () => {
  it('refuses metadata that is not a JSON object, and lends nothing of a refused record to the next one', async () => {
    await memory.add({ namespace: 'leak', text: 'first real note about apples' });
    for (const metadata of [[1, 2], { n: 10n }, 'text']) {
      expect(await codeOf(memory.add({ namespace: 'leak', text: 'SECRET_TOKEN=abc123 never stored', metadata: metadata as never }))).toBe('INVALID_ARGUMENT');
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await codeOf(memory.add({ namespace: 'leak', text: 'SECRET_TOKEN=abc123 never stored', metadata: cyclic }))).toBe('INVALID_ARGUMENT');
    const good = await memory.add({ namespace: 'leak', text: 'second real note about pears' });
    expect(good.context ?? '').not.toContain('SECRET_TOKEN');
    expect(good.context).toBe('first real note about apples');
    expect(await codeOf(memory.update(good.id, { metadata: [1] as never }))).toBe('INVALID_ARGUMENT');
    // What was stored exports and imports back whole.
    const exported = await memory.export();
    const otherRoot = await mkdtemp(join(tmpdir(), 'loci-memory-copy-'));
    const other = createLoci({ root: otherRoot });
    try {
      expect((await (await other.memory()).import(exported)).imported).toBe(2);
    } finally {
      await other.close();
      await rm(otherRoot, { recursive: true, force: true });
    }
  });
});

describe('big writes', () => {
  it('lets the event loop turn between batches, so a server answers during a long load', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      const records = Array.from({ length: 3_000 }, (_, index) => ({ namespace: 'docs', kind: 'knowledge' as const, text: `section ${index} about topic ${index % 97}` }));
      await memory.addMany(records, { dedupe: false });
      // 12 batches of 256: a timer gets a turn between them (none did while every await settled as a microtask).
      expect(ticks).toBeGreaterThan(3);
    } finally {
      clearInterval(timer);
    }
  });
});

describe('namespaces', () => {
  it('scopes recall to a namespace and everything nested under it', async () => {
    await memory.add({ namespace: 'agent/boss', text: 'The boss fight starts with a fire attack' });
    await memory.add({ namespace: 'agent/boss/session/42', text: 'In session 42 the player dodged the fire attack' });
    await memory.add({ namespace: 'agent/bossy', text: 'Bossy agent also mentions a fire attack' });
    await memory.add({ namespace: 'user/7', text: 'User 7 likes fire attack builds' });

    const scoped = await memory.recall('fire attack', { namespaces: ['agent/boss'], topK: 10 });
    expect(scoped.map((hit) => hit.record.namespace).sort()).toEqual(['agent/boss', 'agent/boss/session/42']);
    const several = await memory.recall('fire attack', { namespaces: ['agent/boss/session/42', 'user/7'], topK: 10 });
    expect(several.map((hit) => hit.record.namespace).sort()).toEqual(['agent/boss/session/42', 'user/7']);
    expect((await memory.recall('fire attack', { topK: 10 })).length).toBe(4);
    expect((await memory.namespaces()).map((entry) => entry.namespace)).toEqual(['agent/boss', 'agent/boss/session/42', 'agent/bossy', 'user/7']);
  });

  it('answers an empty namespace with nothing, and rejects malformed names with clear errors', async () => {
    await memory.add({ namespace: 'agent/boss', text: 'something' });
    expect(await memory.recall('x', { namespaces: ['agent/nobody'] })).toEqual([]);
    expect(await codeOf(memory.recall('x', { namespaces: ['bad space'] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(memory.add({ namespace: 'bad space/x', text: 'y' }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(memory.add({ namespace: '', text: 'y' }))).toBe('INVALID_ARGUMENT');
  });
});

describe('a namespace holds its own records', () => {
  it('merges a near-identical note only within its own namespace, never into one nested under it', async () => {
    const nested = await memory.add({ namespace: 'user/43/session/1', text: 'likes tabs over spaces' });
    const parent = await memory.add({ namespace: 'user/43', text: 'likes tabs over spaces', metadata: { durable: true } });
    expect(parent.namespace).toBe('user/43');
    expect(parent.id).not.toBe(nested.id);
    expect(parent.mergedCount).toBe(0);
    // Forgetting the session keeps the durable note.
    await memory.forget({ namespaces: ['user/43/session/1'] });
    expect((await memory.list({ namespaces: ['user/43'] })).map((record) => record.text)).toEqual(['likes tabs over spaces']);
    const twin = await memory.add({ namespace: 'user/43', text: 'likes tabs over spaces' });
    expect(twin).toMatchObject({ id: parent.id, mergedCount: 1 });
  });

  it('gets a record by a namespace above it, as list and forget read namespaces, and not by another', async () => {
    const record = await memory.add({ namespace: 'team/a/session/9', text: 'deploys on Fridays are banned' });
    expect((await memory.get(record.id, 'team/a'))?.id).toBe(record.id);
    expect(await memory.get(record.id, 'team/b')).toBeUndefined();
    expect(await codeOf(memory.update(record.id, { namespace: 'team/b', text: 'changed' }))).toBe('RECORD_NOT_FOUND');
  });

  it('refuses ids with control or format characters (NUL, escapes, bidi overrides)', async () => {
    for (const id of ['bad\u0000id', 'esc\u001b[31m', 'rtl\u202eid']) expect(await codeOf(memory.add({ namespace: 'n', id, text: 'x' })), JSON.stringify(id)).toBe('INVALID_ARGUMENT');
    expect(await memory.list()).toEqual([]);
  });
});

describe('bad input writes nothing', () => {
  it('refuses an oversized record and the whole batch it came in', async () => {
    const error = await memory
      .addMany([
        { namespace: 'n', text: 'a fine record' },
        { namespace: 'n', text: 'x'.repeat(MAX_RECORD_CHARS + 1) },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LociError);
    expect((error as LociError).message).toMatch(/limit is 100000/);
    expect(await memory.list()).toEqual([]);
  });

  it('rejects a malformed import file whole', async () => {
    const bad = {
      format: 'loci-memory',
      version: 1,
      embedder: 'none',
      records: [
        { id: 'ok', namespace: 'n', kind: 'note', text: 'fine', time: 1 },
        { id: 'a/b', namespace: 'n', kind: 'note', text: 't', time: 1 },
      ],
    };
    await expect(memory.import(bad)).rejects.toThrow(/record 1/);
    await expect(memory.import({ format: 'loci-memory', version: 1, embedder: 'none', records: [{ id: 'x' }] })).rejects.toThrow(/problem/);
    await expect(memory.import({ hello: 'world' })).rejects.toThrow(/not a loci export/);
    await expect(memory.import({ Records: { a: { id: 'a', prompt: 'p', embedding: [1, 'x'] } } }, { namespace: 'agent/go' })).rejects.toThrow(/finite numbers/);
    await expect(memory.import({ Records: { a: { id: 'a', prompt: 'p' } } })).rejects.toThrow(/namespace/);
    expect(await memory.list()).toEqual([]);
  });
});

describe('conversation memory', () => {
  it('keeps turns of one millisecond in the order they were written', async () => {
    const time = Date.UTC(2024, 5, 1);
    const steps = Array.from({ length: 12 }, (_, index) => `step ${index + 1}`);
    // One call: the ids are made within a millisecond, as a fast loop of addTurn makes them.
    await memory.addMany(
      steps.map((step) => turnRecordInput({ conversationId: 'same-ms', userQuery: step, assistantResponse: `done with ${step}`, time })),
      { dedupe: false },
    );
    const history = await memory.history({ conversationId: 'same-ms' }); // the default budget, 2000 tokens, holds them all
    expect(history.turns.map((turn) => (turn.fields as { userQuery: string }).userQuery)).toEqual(steps);
  });

  it('returns the latest turns that fit plus older turns relevant to the query', async () => {
    const topics = ['weather in Lisbon', 'a bug in the parser', 'lunch plans', 'the quarterly budget spreadsheet', 'holiday photos', 'the new laptop', 'gym schedule', 'a book about rivers'];
    let time = Date.UTC(2024, 0, 1);
    for (const topic of topics) {
      await memory.addTurn({ conversationId: 'c1', userQuery: `Tell me about ${topic}`, assistantResponse: `Here is what I know about ${topic}. `.repeat(3), time: (time += 60_000) });
    }
    await memory.addTurn({ conversationId: 'c2', userQuery: 'Tell me about the quarterly budget spreadsheet', assistantResponse: 'Other conversation', time: (time += 60_000) });

    const budget = 200;
    const history = await memory.history({ conversationId: 'c1', query: 'what did we say about the budget spreadsheet?', tokenBudget: budget });
    expect(history.tokens).toBeLessThanOrEqual(budget);
    const queries = history.turns.map((turn) => (turn.fields as { userQuery: string }).userQuery);
    expect(queries).toContain('Tell me about a book about rivers'); // the latest turn
    expect(queries).toContain('Tell me about the quarterly budget spreadsheet'); // old but relevant
    expect(queries).not.toContain('Tell me about weather in Lisbon');
    expect(history.relevantIds.length).toBeGreaterThan(0);
    expect(history.omitted).toBeGreaterThan(0);
    // Conversation order, and only this conversation.
    expect(history.turns.map((turn) => turn.time)).toEqual([...history.turns.map((turn) => turn.time)].sort((a, b) => a - b));
    expect(history.turns.every((turn) => (turn.fields as { conversationId: string }).conversationId === 'c1')).toBe(true);

    const recentOnly = await memory.history({ conversationId: 'c1', tokenBudget: budget });
    expect(recentOnly.relevantIds).toEqual([]);
    expect(recentOnly.turns.at(-1)?.id).toBe(history.turns.at(-1)?.id);
  });

  it('counts turns with the prompt tokenizer, and keeps the newest turn when it takes more than the recent share', async () => {
    const chinese = '我们讨论了数据库迁移的计划，决定先备份所有表，然后在周末执行迁移，最后验证每一行数据是否一致。'.repeat(3);
    await memory.addTurn({ conversationId: 'zh', userQuery: '迁移计划是什么？', assistantResponse: chinese, time: Date.UTC(2024, 0, 1) });
    const counted = await memory.history({ conversationId: 'zh', tokenBudget: 10_000 });
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    expect(counted.tokens).toBe(countTokens(counted.turns[0]?.text ?? '') + 4);
    // A budget under its real size leaves it out (an estimate counted a third of it).
    expect((await memory.history({ conversationId: 'zh', tokenBudget: Math.floor(counted.tokens * 0.6) })).turns).toEqual([]);

    for (let index = 0; index < 6; index++) {
      await memory.addTurn({ conversationId: 'long', userQuery: `question ${index} about option parsing`, assistantResponse: 'short answer', time: Date.UTC(2024, 0, 1, 0, index) });
    }
    await memory.addTurn({ conversationId: 'long', userQuery: 'and the newest question', assistantResponse: 'a long answer '.repeat(70), time: Date.UTC(2024, 0, 2) });
    const newest = await memory.history({ conversationId: 'long', query: 'option parsing', tokenBudget: 300 });
    expect(newest.turns.at(-1)?.text).toContain('the newest question');
    expect(newest.tokens).toBeLessThanOrEqual(300);
  });
});

describe('interaction memory', () => {
  it('recalls the most similar successful interactions', async () => {
    await memory.logInteraction({ namespace: 'unity/s1', prompt: 'create a red cube at the origin', response: '{"cmd":"CreateObject"}', outcome: 'success' });
    await memory.logInteraction({ namespace: 'unity/s1', prompt: 'create a blue cube above the floor', response: '{"cmd":"CreateObject"}', outcome: 'error', feedback: 'no floor' });
    await memory.logInteraction({ namespace: 'unity/s1', prompt: 'rename the main camera', response: '{}', outcome: 'success' });
    const hits = await memory.recall('create a green cube', { namespaces: ['unity/s1'], topK: 3, outcome: 'success' });
    expect(hits[0]?.record.text).toBe('create a red cube at the origin');
    expect(hits.every((hit) => (hit.record.fields as InteractionFields).outcome === 'success')).toBe(true);
  });

  it('prefers a successful interaction over an equally similar failed one', async () => {
    await memory.logInteraction({ namespace: 'unity/s3', prompt: 'spawn a cube on the table', response: '{"cmd":"Spawn"}', outcome: 'error', time: 2_000 });
    await memory.logInteraction({ namespace: 'unity/s3', prompt: 'spawn a cube on the table', response: '{"cmd":"Spawn","parent":"Table"}', outcome: 'success', time: 1_000 });
    const hits = await memory.recall('spawn a cube on the table', { namespaces: ['unity/s3'], topK: 2, now: 2_000 });
    expect(hits.map((hit) => hit.signals.outcome)).toEqual([1, -1]);
  });

  it('logs a wrapped command even when it throws, and rethrows', async () => {
    await expect(
      memory.withInteraction({ namespace: 'unity/s2', prompt: 'delete every light', multiStep: true }, async () => {
        throw new Error('Light not found');
      }),
    ).rejects.toThrow('Light not found');
    const result = await memory.withInteraction({ namespace: 'unity/s2', prompt: 'add a light' }, async (log) => {
      log.feedback = 'ok';
      return 'created Light 1';
    });
    expect(result).toBe('created Light 1');
    const controller = new AbortController();
    controller.abort();
    await expect(memory.withInteraction({ namespace: 'unity/s2', prompt: 'long job' }, async () => controller.signal.throwIfAborted())).rejects.toThrow();

    const logged = await memory.list({ namespaces: ['unity/s2'] });
    const byPrompt = new Map(logged.map((record) => [record.text, record.fields as InteractionFields]));
    expect(byPrompt.get('delete every light')).toMatchObject({ outcome: 'error', feedback: 'Light not found', multiStep: true });
    expect(byPrompt.get('add a light')).toMatchObject({ outcome: 'success', response: 'created Light 1', feedback: 'ok' });
    expect(byPrompt.get('long job')?.outcome).toBe('cancelled');
  });
});

describe('knowledge stores', () => {
  it('builds from markdown sections, searches with a threshold, and rebuilds when the file changes', async () => {
    const file = join(workspace, 'boss.md');
    await writeFile(file, '# Boss\n\n## Attacks\n\nThe boss breathes fire and summons skeleton minions.\n\n## Weakness\n\nThe boss is weak to ice spells and arrows.\n');
    expect(await codeOf(memory.knowledge.loadOrCreate('boss', join(workspace, 'missing.md')))).toBe('FILE_NOT_FOUND');
    const store = await memory.knowledge.loadOrCreate('boss', file);
    expect(store.rebuilt).toBe(true);
    expect(store.sections).toBeGreaterThanOrEqual(2);
    const hits = await store.search('what is the boss weak against? ice spells', { threshold: 0.1 });
    expect(hits[0]?.record.text).toMatch(/weak to ice/);
    expect(hits.length).toBeLessThanOrEqual(2);
    expect(await store.search('quantum chromodynamics lecture notes', { threshold: 0.99 })).toEqual([]);

    const again = await memory.knowledge.loadOrCreate('boss', file);
    expect(again.rebuilt).toBe(false);

    await writeFile(file, '# Boss\n\n## Weakness\n\nThe boss is now weak only to lightning.\n');
    const hitsAfter = await again.search('what is the boss weak against?', { threshold: 0.1, topK: 5 });
    expect(again.rebuilt).toBe(true);
    expect(hitsAfter.map((hit) => hit.record.text).join(' ')).toMatch(/lightning/);
    expect(hitsAfter.map((hit) => hit.record.text).join(' ')).not.toMatch(/ice spells/);
  });
});

describe('lifecycle', () => {
  it('dedupes near-identical notes, updates, forgets by id and filter, and expires by TTL', async () => {
    const first = await memory.add({ namespace: 'user/1', text: 'Prefers dark mode in every editor.' });
    const twin = await memory.add({ namespace: 'user/1', text: 'prefers dark mode in every editor' });
    expect(twin.id).toBe(first.id);
    expect(twin.mergedCount).toBe(1);
    expect((await memory.list({ namespaces: ['user/1'] })).length).toBe(1);
    await memory.add({ namespace: 'user/1', text: 'prefers dark mode in every editor' }, { dedupe: false });
    expect((await memory.list({ namespaces: ['user/1'] })).length).toBe(2);

    const updated = await memory.update(first.id, { text: 'Prefers light mode since 2024.' });
    expect(updated.text).toBe('Prefers light mode since 2024.');
    expect((await memory.recall('light mode', { namespaces: ['user/1'] }))[0]?.record.id).toBe(first.id);
    expect(await codeOf(memory.update('missing-id', { text: 'x' }))).toBe('RECORD_NOT_FOUND');

    const now = Date.now();
    const temporary = await memory.add({ namespace: 'user/2', text: 'temporary token abc', ttlMs: 1000, time: now - 5000 });
    await memory.add({ namespace: 'user/2', text: 'old fact from 2020', time: Date.UTC(2020, 0, 1) });
    expect((await memory.recall('temporary token', { namespaces: ['user/2'] })).map((hit) => hit.record.text)).not.toContain('temporary token abc');
    // Expired is gone for get as for list and recall; update may still give it a new expiry.
    expect(await memory.get(temporary.id)).toBeUndefined();
    expect((await memory.update(temporary.id, { ttlMs: 60_000 })).expiresAt).toBeGreaterThan(Date.now());
    expect((await memory.get(temporary.id))?.text).toBe('temporary token abc');
    await memory.update(temporary.id, { ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await memory.gc()).toBe(1);
    expect(await memory.forget({ namespaces: ['user/2'], before: Date.UTC(2021, 0, 1) })).toBe(1);
    expect(await memory.forget({ ids: [first.id] })).toBe(1);
    await expect(memory.forget({})).rejects.toThrow(/needs a filter/);
    expect(await memory.forget({ all: true })).toBe(1);
    expect(await memory.list()).toEqual([]);
  });

  it('finds dates and names inside memories', async () => {
    await memory.add({ namespace: 'u', text: 'Melanie painted a sunrise over the lake', time: Date.UTC(2022, 6, 14) });
    await memory.add({ namespace: 'u', text: 'Caroline adopted a dog named Oscar', time: Date.UTC(2023, 4, 8) });
    await memory.add({ namespace: 'u', text: 'Somebody went hiking', time: Date.UTC(2021, 1, 2) });
    expect((await memory.recall('what happened in May 2023', { namespaces: ['u'] }))[0]?.record.text).toMatch(/Oscar/);
    expect((await memory.recall('Melanie', { namespaces: ['u'] }))[0]?.record.text).toMatch(/sunrise/);
  });

  it('exports and imports with vectors kept for the same embedder', async () => {
    await memory.add({ namespace: 'agent/a', text: 'alpha fact about rivers', metadata: { source: 'test' } });
    await memory.logInteraction({ namespace: 'agent/a', prompt: 'list the rivers', response: 'Nile, Amazon', outcome: 'success' });
    const exported: MemoryExport = JSON.parse(JSON.stringify(await memory.export()));
    expect(exported.format).toBe('loci-memory');
    expect(exported.records).toHaveLength(2);
    expect(exported.records.every((record) => Array.isArray(record.embedding) && record.embedding.length === 128)).toBe(true);

    await memory.forget({ all: true });
    const summary = await memory.import(exported);
    expect(summary).toMatchObject({ format: 'loci', imported: 2, keptVectors: 2, reembedded: 0 });
    const back = await memory.list();
    expect(back.map((record) => record.text).sort()).toEqual(['alpha fact about rivers', 'list the rivers']);
    expect(back.find((record) => record.kind === 'note')?.metadata).toEqual({ source: 'test' });

    const foreign = { ...exported, embedder: 'openai:text-embedding-3-small@1536' };
    expect(await memory.import(foreign)).toMatchObject({ keptVectors: 0, reembedded: 2 });
  });

  it("imports the Go agent's vector store and the Unity memory log", async () => {
    const go = { Records: { r1: { id: 'r1', prompt: 'The boss is weak to ice', embedding: [0.1, 0.2, 0.3] }, r2: { Id: 'r2', Prompt: 'The boss guards the gate', Embedding: [0.3, 0.2, 0.1] } } };
    const goSummary = await memory.import(go, { namespace: 'agents/boss/knowledge' });
    expect(goSummary).toMatchObject({ format: 'go-vector-store', imported: 2, keptVectors: 0, reembedded: 2 });
    expect((await memory.recall('ice weakness', { namespaces: ['agents/boss/knowledge'] }))[0]?.record.text).toBe('The boss is weak to ice');

    const unity = {
      records: [
        { UserPrompt: 'make a red cube', LLMResponse: { command: 'CreateCube', color: 'red' }, Outcome: 0, Feedback: 'done', isMultiStep: false, PromptEmbedding: [0.5, 0.5] },
        { UserPrompt: 'delete the sun', LLMResponse: '{}', Outcome: 'Error', Feedback: 'no sun', isMultiStep: true, PromptEmbedding: [] },
      ],
    };
    const unitySummary = await memory.import(unity, { namespace: 'unity/session-1' });
    expect(unitySummary).toMatchObject({ format: 'unity-memory-log', imported: 2 });
    const records = await memory.list({ namespaces: ['unity/session-1'] });
    const red = records.find((record) => record.text === 'make a red cube')?.fields as InteractionFields;
    expect(red).toMatchObject({ outcome: 'success', feedback: 'done', multiStep: false });
    expect(JSON.parse(red.response)).toEqual({ command: 'CreateCube', color: 'red' });
    expect((records.find((record) => record.text === 'delete the sun')?.fields as InteractionFields | undefined)?.outcome).toBe('error');
    // Importing the same log again replaces rather than duplicates.
    await memory.import(unity, { namespace: 'unity/session-1' });
    expect((await memory.list({ namespaces: ['unity/session-1'] })).length).toBe(2);
  });

  it('persists across processes and re-embeds when the embedder changes', async () => {
    await memory.add({ namespace: 'p', text: 'persisted memory about gardening' });
    await loci.close();
    loci = createLoci({ root: workspace, embedder: 'none' });
    memory = await loci.memory();
    expect((await memory.recall('gardening'))[0]?.record.text).toBe('persisted memory about gardening');
    await loci.close();
    loci = createLoci({ root: workspace });
    memory = await loci.memory();
    const [hit] = await memory.recall('gardening', { mode: 'vector' });
    expect(hit?.record.text).toBe('persisted memory about gardening');
  });
});

describe('memory segment file', () => {
  it('a closing engine saves memory as a segment; the next one recalls from it (one-shot CLI-like and long-lived engines) with the same answers', async () => {
    const topics = ['fire attack', 'ice shield', 'poison dart', 'healing potion', 'stealth move'];
    for (let record = 0; record < 60; record++) {
      const topic = topics[record % topics.length] as string;
      await memory.add({ namespace: `agent/${record % 3}`, text: `Record ${record}: the player used the ${topic} in level ${record % 7}` });
    }
    const queries = ['fire attack', 'healing potion in level 3', 'stealth'];
    const firstAnswers: Array<Array<{ id: string; score: number }>> = [];
    // Scores include recency (they drift with the clock): ids must match, scores within 1e-4.
    for (const query of queries) firstAnswers.push((await memory.recall(query, { topK: 8 })).map((hit) => ({ id: hit.record.id, score: hit.score })));
    await loci.close();
    const store = join(workspace, '.loci');
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(store).filter((name) => /^memory-segment-[0-9a-f]{12}\.seg$/.test(name))).toHaveLength(1);
    for (const inMemory of [false, true]) {
      const next = createLoci({ root: workspace, inMemory });
      const again = await next.memory();
      for (const [index, query] of queries.entries()) {
        const hits = (await again.recall(query, { topK: 8 })).map((hit) => ({ id: hit.record.id, score: hit.score }));
        const expected = firstAnswers[index] ?? [];
        expect(hits.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id));
        hits.forEach((hit, rank) => expect(hit.score).toBeCloseTo(expected[rank]?.score ?? Number.NaN, 4));
      }
      await next.close();
    }
    loci = createLoci({ root: workspace }); // for afterEach
  });
});
