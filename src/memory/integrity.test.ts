import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoci, type Loci } from '../engine/create-loci.js';
import { LociError } from '../errors/index.js';
import type { Memory } from './memory.js';
import type { MemoryRecord } from './spec.js';

let workspace: string;
let loci: Loci;
let memory: Memory;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-memory-integrity-'));
  loci = createLoci({ root: workspace });
  memory = await loci.memory();
});

afterEach(async () => {
  await loci.close();
  await rm(workspace, { recursive: true, force: true });
});

async function errorOf(promise: Promise<unknown>): Promise<LociError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(caught instanceof LociError)) throw new Error(`expected a LociError, got ${String(caught)}`);
  return caught;
}

describe('dedupe keeps newer facts that contradict older ones', () => {
  it.each([
    ['The staging database port is 5432', 'The staging database port is 6543'],
    ['Do not delete the bucket', 'Do delete the bucket'],
  ])('"%s" then "%s": both kept, the newer recalled first', async (older, newer) => {
    const first = await memory.add({ namespace: 'ops', text: older, time: 1_000_000 });
    const second = await memory.add({ namespace: 'ops', text: newer, time: 2_000_000 });
    expect(second.id).not.toBe(first.id);
    expect(second.mergedCount).toBe(0);
    expect(second.conflictsWith).toEqual([first.id]);
    const texts = (await memory.list({ namespaces: ['ops'] })).map((record) => record.text);
    expect(texts).toEqual([older, newer]);
    // Queried with the old wording, the new fact still comes first.
    const hits = await memory.recall(older, { namespaces: ['ops'], now: 3_000_000 });
    expect(hits.map((hit) => hit.record.text)).toEqual([newer, older]);
    expect(hits[0]?.signals.supersedes).toBe(1);
  });

  it('keeps names apart even when vectors are close enough to merge', async () => {
    await loci.close();
    loci = createLoci({ root: workspace, config: { memory: { dedupeSimilarity: 0.6 } } });
    memory = await loci.memory();
    const alice = await memory.add({ namespace: 'team', text: 'Alice owns the billing service', time: 1_000 });
    const bob = await memory.add({ namespace: 'team', text: 'Bob owns the billing service', time: 2_000 });
    expect(bob.id).not.toBe(alice.id);
    expect((await memory.recall('who owns the billing service', { namespaces: ['team'], now: 3_000 }))[0]?.record.text).toBe('Bob owns the billing service');
  });

  it('still merges a near-duplicate that agrees', async () => {
    const first = await memory.add({ namespace: 'ops', text: 'The staging database port is 5432.' });
    const twin = await memory.add({ namespace: 'ops', text: 'the staging database port is 5432' });
    expect(twin.id).toBe(first.id);
    expect(twin.mergedCount).toBe(1);
  });
});

describe('update keeps history', () => {
  it('keeps each replaced text in versions, shown by get and export, and imported back', async () => {
    const record = await memory.add({ namespace: 'user/1', text: 'Prefers dark mode.', time: 1_000 });
    await memory.update(record.id, { text: 'Prefers light mode.' });
    await memory.update(record.id, { metadata: { checked: true } });
    const updated = await memory.update(record.id, { text: 'Prefers high contrast.' });
    expect(updated.versions?.map((version) => version.text)).toEqual(['Prefers dark mode.', 'Prefers light mode.']);
    expect(updated.versions?.[0]).toMatchObject({ updatedAt: record.updatedAt, replacedAt: expect.any(Number) });
    expect((await memory.get(record.id))?.versions?.map((version) => version.text)).toEqual(['Prefers dark mode.', 'Prefers light mode.']);
    const exported = JSON.parse(JSON.stringify(await memory.export()));
    expect(exported.records[0].versions).toHaveLength(2);
    await memory.forget({ all: true });
    await memory.import(exported);
    expect((await memory.get(record.id))?.versions?.map((version) => version.text)).toEqual(['Prefers dark mode.', 'Prefers light mode.']);
  });

  it('bounds history', async () => {
    const record = await memory.add({ namespace: 'n', text: 'version 0' });
    for (let index = 1; index <= 25; index++) await memory.update(record.id, { text: `version ${index}` });
    const versions = (await memory.get(record.id))?.versions ?? [];
    expect(versions).toHaveLength(20);
    expect(versions.at(-1)?.text).toBe('version 24');
  });
});

describe('times are checked', () => {
  it.each([1e300, -1e300, Number.NaN, 8.64e15])('refuses time %s at every library door', async (time) => {
    expect((await errorOf(memory.add({ namespace: 'n', text: 'x', time }))).code).toBe('INVALID_ARGUMENT');
    expect((await errorOf(memory.addTurn({ conversationId: 'c', userQuery: 'q', assistantResponse: 'a', time }))).code).toBe('INVALID_ARGUMENT');
    expect((await errorOf(memory.logInteraction({ namespace: 'n', prompt: 'p', outcome: 'success', time }))).code).toBe('INVALID_ARGUMENT');
    const file = { format: 'loci-memory', version: 1, embedder: 'none', records: [{ id: 'a', namespace: 'n', kind: 'note', text: 'x', time: Number.isNaN(time) ? 'NaN' : time }] };
    expect((await errorOf(memory.import(JSON.parse(JSON.stringify(file))))).code).toBe('IMPORT_INVALID');
    expect(await memory.list()).toEqual([]);
  });

  it('refuses an id that is not well-formed Unicode (the store could not keep it as given)', async () => {
    const error = await errorOf(memory.add({ id: 'cut-\uD83D', namespace: 'n', text: 'x' }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/well-formed Unicode/);
    expect(await memory.list()).toEqual([]);
    expect((await memory.add({ id: 'whole-😀', namespace: 'n', text: 'x' })).id).toBe('whole-😀');
  });

  it('refuses a ttl that ends after year 9999', async () => {
    const error = await errorOf(memory.add({ namespace: 'n', text: 'x', ttlMs: 1e300 }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/9999-12-31/);
  });

  it('reads a stored row with time 1e300 without crashing recall, list or export', async () => {
    const bad: MemoryRecord = { id: 'bad', namespace: 'n', kind: 'note', text: 'the far future deploy', time: 1e300, updatedAt: 1e300, mergedCount: 0 };
    await memory.records.write([bad]);
    await memory.add({ namespace: 'n', text: 'a normal deploy note' });
    const hits = await memory.recall('deploy', { namespaces: ['n'] });
    const read = hits.find((hit) => hit.record.id === 'bad')?.record;
    expect(read?.time).toBe(new Date('9999-12-31T23:59:59.999Z').getTime());
    expect(read?.warnings?.[0]).toMatch(/time 1e\+300 is outside years 0001–9999/);
    expect(() => new Date(read?.time as number).toISOString()).not.toThrow();
    expect((await memory.list()).map((record) => record.id)).toContain('bad');
    expect((await memory.export()).records).toHaveLength(2);
    // Any update keeps the repaired time, and the warning is not stored.
    const fixed = await memory.update('bad', { metadata: { repaired: true } });
    expect(fixed.warnings).toBeUndefined();
    expect((await memory.get('bad'))?.warnings).toBeUndefined();
  });
});

describe('ids are unique per store', () => {
  it('refuses an existing id in another namespace or the same one, and leaves the record alone', async () => {
    await memory.add({ namespace: 'a', id: 'fact-1', text: 'the original text' });
    const elsewhere = await errorOf(memory.add({ namespace: 'b', id: 'fact-1', text: 'a second record with the same id' }));
    expect(elsewhere.code).toBe('MEMORY_ID_CONFLICT');
    expect(elsewhere.category).toBe('conflict');
    expect(elsewhere.message).toMatch(/fact-1 already exists \(namespace a\)/);
    expect((await errorOf(memory.add({ namespace: 'a', id: 'fact-1', text: 'silently replaced?' }))).code).toBe('MEMORY_ID_CONFLICT');
    expect((await errorOf(memory.addTurn({ conversationId: 'c', userQuery: 'q', assistantResponse: 'a', id: 'fact-1' }))).code).toBe('MEMORY_ID_CONFLICT');
    expect(
      (
        await errorOf(
          memory.addMany([
            { namespace: 'x', id: 'dup', text: '1' },
            { namespace: 'y', id: 'dup', text: '2' },
          ]),
        )
      ).code,
    ).toBe('INVALID_ARGUMENT');
    const all = await memory.list();
    expect(all.map((record) => `${record.namespace}/${record.id}: ${record.text}`)).toEqual(['a/fact-1: the original text']);
    expect((await memory.update('fact-1', { text: 'changed on purpose' })).text).toBe('changed on purpose');
  });

  it('refuses an import whose id lives in another namespace, and still re-imports in place', async () => {
    await memory.add({ namespace: 'a', id: 'fact-1', text: 'the original text' });
    const exported = JSON.parse(JSON.stringify(await memory.export()));
    expect((await memory.import(exported)).imported).toBe(1);
    const moved = { ...exported, records: [{ ...exported.records[0], namespace: 'b' }] };
    expect((await errorOf(memory.import(moved))).code).toBe('MEMORY_ID_CONFLICT');
    expect((await memory.list()).map((record) => record.namespace)).toEqual(['a']);
  });

  it('asks for the namespace when an older store holds one id twice', async () => {
    const record = (namespace: string): MemoryRecord => ({ id: 'twice', namespace, kind: 'note', text: `in ${namespace}`, time: 1, updatedAt: 1, mergedCount: 0 });
    await memory.records.write([record('a'), record('b')]);
    expect((await errorOf(memory.get('twice'))).code).toBe('MEMORY_ID_CONFLICT');
    expect((await errorOf(memory.update('twice', { text: 'which one?' }))).code).toBe('MEMORY_ID_CONFLICT');
    expect((await memory.update('twice', { namespace: 'b', text: 'this one' })).namespace).toBe('b');
  });
});
