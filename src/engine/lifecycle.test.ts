import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoci } from './create-loci.js';
import type { IndexEvent } from '../indexing/events.js';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { acquireRunLease } from './run-lease.js';

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-lifecycle-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function project(files: number): Promise<string> {
  const root = join(workspace, 'project');
  await mkdir(root, { recursive: true });
  for (let index = 0; index < files; index++) {
    await writeFile(join(root, `file${index}.ts`), `export function handler${index}(input: number): number {\n  return input + ${index};\n}\n`);
  }
  return root;
}

describe('engine lifecycle', () => {
  it('refuses to index a folder that does not exist, and does not create it', async () => {
    const missing = join(workspace, 'typo-in-path');
    const loci = createLoci({ root: missing });
    await expect(loci.index()).rejects.toMatchObject({ code: 'ROOT_NOT_FOUND' });
    await expect(loci.indexPaths(['a.ts'])).rejects.toMatchObject({ code: 'ROOT_NOT_FOUND' });
    expect(existsSync(missing)).toBe(false);
    await loci.close();
  });

  it('close() stops a run under way and waits for it: the run rejects with ABORTED, no event comes after close', async () => {
    const loci = createLoci({ root: await project(300), config: { embedder: 'none' } });
    let closed: Promise<void> | undefined;
    let closeDone = false;
    let eventsAfterClose = 0;
    const run = loci.index({
      onProgress: (event) => {
        if (closeDone) eventsAfterClose++;
        if (event.type === 'file-indexed' && event.done === 20) closed = loci.close().then(() => void (closeDone = true));
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    await closed;
    expect(closeDone).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(eventsAfterClose).toBe(0);
  });

  it('answers a search under way before closing, and every call after close() with ENGINE_CLOSED', async () => {
    const loci = createLoci({ root: await project(20), config: { embedder: 'none' } });
    await loci.index();
    const memory = await loci.memory();
    await memory.add({ namespace: 'a', text: 'a note kept before close' });
    const search = loci.search('handler input');
    await loci.close();
    expect((await search).results.length).toBeGreaterThan(0);
    for (const call of [() => loci.search('x'), () => loci.index(), () => loci.status(), () => loci.memory(), () => loci.findSymbol('handler1'), () => loci.watch()]) {
      await expect(call()).rejects.toMatchObject({ code: 'ENGINE_CLOSED' });
    }
    // A Memory kept past close gets the same typed error, not a driver message.
    await expect(memory.recall('note')).rejects.toMatchObject({ code: 'ENGINE_CLOSED' });
    await loci.close(); // closing twice is harmless
    // Nothing was reopened behind the caller's back: a new engine sees the note.
    const again = createLoci({ root: join(workspace, 'project'), config: { embedder: 'none' } });
    expect((await (await again.memory()).recall('note kept')).map((hit) => hit.record.text)).toEqual(['a note kept before close']);
    await again.close();
  });

  it('hashes a touched file once: its content matched, so later runs take the size+mtime path again', async () => {
    const root = await project(5);
    const written = new Date(Date.now() - 120_000); // not "racy": written well before the run
    for (let index = 0; index < 5; index++) await utimes(join(root, `file${index}.ts`), written, written);
    const loci = createLoci({ root, config: { embedder: 'none' } });
    try {
      const firstRun = Date.now();
      await loci.index();
      const plans: Array<{ toCheck: number; unchanged: number }> = [];
      const onProgress = (event: IndexEvent) => {
        if (event.type === 'plan-ready') plans.push({ toCheck: event.toCheck, unchanged: event.unchanged });
      };
      // Touched (a checkout) just around the first run, content unchanged: its mtime alone cannot
      // be trusted then ("racy clean"), so the next run hashes it, and the run after need not.
      const touched = new Date(firstRun - 1_000);
      await utimes(join(root, 'file1.ts'), touched, touched);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      await loci.index({ onProgress });
      await loci.index({ onProgress });
      expect(plans).toEqual([
        { toCheck: 1, unchanged: 4 },
        { toCheck: 0, unchanged: 5 },
      ]);
    } finally {
      await loci.close();
    }
  });

  it("counts the segment and graph files in status's and gc's bytes on disk", async () => {
    const root = await project(30);
    const loci = createLoci({ root, config: { embedder: 'none' } });
    try {
      await loci.index();
      const folder = join(root, '.loci');
      const names = (await readdir(folder)).filter((name) => !name.startsWith('memory') && !name.endsWith('-shm')); // -shm: SQLite's lock index, not data
      expect(names.some((name) => name.startsWith('segment-'))).toBe(true);
      const onDisk = (await Promise.all(names.map(async (name) => (await stat(join(folder, name))).size))).reduce((sum, size) => sum + size, 0);
      expect((await loci.status({ checkChanges: false })).bytesOnDisk).toBe(onDisk);
    } finally {
      await loci.close();
    }
  });

  it('warns that results are partial while the first index of the folder is still being built', async () => {
    const root = await project(10);
    const loci = createLoci({ root, config: { embedder: 'none' } });
    try {
      await loci.index();
      // As during a cold index: some files written, no run finished yet, and a run holding the store.
      const database = new Database(join(root, '.loci', 'index.db'));
      database.prepare("DELETE FROM meta WHERE key = 'state:last-run'").run();
      database.close();
      const other = openSqliteStore({ file: join(root, '.loci', 'index.db') });
      const lease = await acquireRunLease(other);
      const during = await loci.search('handler input');
      expect(during.results.length).toBeGreaterThan(0);
      expect(during.warnings.filter((warning) => warning.includes('first index'))).toEqual([
        expect.stringMatching(/^The first index of this folder is still being built \(since .*\): results come only from the files indexed so far\.$/),
      ]);
      await lease.release();
      await other.close();
      expect((await loci.search('handler input')).warnings.filter((warning) => warning.includes('first index'))).toEqual([]);
    } finally {
      await loci.close();
    }
  });

  it("answers a JavaScript caller's wrong types with INVALID_ARGUMENT naming the option, never a TypeError", async () => {
    const loci = createLoci({ root: await project(3), config: { embedder: 'none' } });
    const { buildContext } = await import('../context/build-context.js');
    try {
      await loci.index();
      const memory = await loci.memory();
      const wrong = [
        () => loci.search('ref', { languages: 'ts' } as never),
        () => loci.search('ref', { mode: 'semantic' } as never),
        () => loci.search('ref', { paths: 'src' } as never),
        () => loci.search(42 as never),
        () => loci.search('ref', { signal: {} } as never),
        () => loci.findSymbol(7 as never),
        () => memory.recall('x', { namespaces: 'agents/alice' } as never),
        () => memory.recall('x', { mode: 'fuzzy' } as never),
        () => memory.recall('x', { kinds: ['nope'] } as never),
        () => memory.list({ namespaces: 'agents' } as never),
        () => memory.forget({ namespaces: 'agents' } as never),
        () => loci.indexPaths('src/a.ts' as never),
        () => buildContext(loci, undefined as never),
        () => buildContext(loci, 42 as never),
        () => buildContext(null as never, 'x'),
        () => memory.addTurn(null as never),
        () => memory.history(null as never),
        () => memory.withInteraction({ namespace: 'unity/s1', prompt: 'add a jump' }, undefined as never),
        () => loci.indexDocuments([{ id: 'a' }] as never),
        () => loci.indexDocuments('hello' as never),
        () => loci.status({ checkChanges: 'yes' } as never),
        () => loci.gc({ compact: 1 } as never),
      ];
      for (const call of wrong) {
        const error = await call().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error, String(call)).toMatchObject({ code: 'INVALID_ARGUMENT' });
      }
      for (const options of [{ inMemory: 'no' }, { env: 'x' }, { embedder: 5 }, { config: 'static' }])
        expect(() => createLoci({ root: loci.root, ...options } as never), JSON.stringify(options)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
      await expect(loci.search('ref', { languages: 'ts' } as never)).rejects.toThrow(/Invalid search options: languages: .*array/);
      expect(() => createLoci(undefined as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
      for (const outside of ['../../etc/passwd', '/etc/passwd']) await expect(loci.indexPaths([outside])).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    } finally {
      await loci.close();
    }
  });

  it('refuses a misspelled option with the key it meant, and passes keys that belong to other calls', async () => {
    const root = await project(3);
    const loci = createLoci({ root, config: { embedder: 'none' } });
    try {
      await loci.index();
      const memory = await loci.memory();
      const { buildContext } = await import('../context/build-context.js');
      const misspelled: Array<[() => Promise<unknown>, string, string]> = [
        [() => loci.search('handler', { language: ['typescript'] } as never), 'language', 'languages'],
        [() => loci.search('handler', { topk: 2 } as never), 'topk', 'topK'],
        [() => loci.search('handler', { pathPrefix: ['src/'] } as never), 'pathPrefix', 'pathPrefixes'],
        [() => loci.findSymbol('handler1', { langauges: ['typescript'] } as never), 'langauges', 'languages'],
        [() => buildContext(loci, 'handler', { conversationID: 'chat-1' } as never), 'conversationID', 'conversationId'],
        [() => buildContext(loci, 'handler', { maxToken: 500 } as never), 'maxToken', 'maxTokens'],
        [() => memory.recall('x', { namespace: ['agents/alice'] } as never), 'namespace', 'namespaces'],
        [() => memory.list({ kind: ['note'] } as never), 'kind', 'kinds'],
        [() => loci.index({ progresive: 'never' } as never), 'progresive', 'progressive'],
        [() => loci.indexDocuments([], { onprogress: () => undefined } as never), 'onprogress', 'onProgress'],
        [() => memory.add({ namespace: 'notes', text: 'expires soon', ttl: 1000 } as never), 'ttl', 'ttlMs'],
        [() => memory.add({ namespace: 'notes', text: 'tagged', metdata: { a: 1 } } as never), 'metdata', 'metadata'],
        [() => memory.addTurn({ conversationId: 'c9', userQuery: 'q', assistantResponse: 'a', namespce: 'x' } as never), 'namespce', 'namespace'],
        [() => memory.logInteraction({ namespace: 'u/s1', prompt: 'p', outcome: 'success', feedbak: 'ok' } as never), 'feedbak', 'feedback'],
        [() => memory.history({ conversationId: 'c1', tokenBudgett: 5 } as never), 'tokenBudgett', 'tokenBudget'],
        [() => loci.gc({ compcat: true } as never), 'compcat', 'compact'],
        [() => loci.status({ checkchanges: true } as never), 'checkchanges', 'checkChanges'],
      ];
      for (const [call, key, meant] of misspelled) {
        const error = await call().then(
          () => undefined,
          (thrown: unknown) => thrown as { code?: string; message: string },
        );
        expect(error?.code, key).toBe('INVALID_ARGUMENT');
        expect(error?.message).toContain(`"${key}"`);
        expect(error?.message).toContain(`did you mean "${meant}"?`);
      }
      // One options object shared between calls: keys of other calls pass, as do keys close to none.
      const shared = { topK: 3, topN: 2, maxTokens: 2000, namespaces: ['agents/alice'], requestId: 'r-1' };
      expect((await loci.search('handler', shared as never)).results.length).toBeGreaterThan(0);
      expect((await buildContext(loci, 'handler', shared)).prompt).toContain('handler');
      await memory.recall('handler', shared as never);
    } finally {
      await loci.close();
    }
    // createLoci's options are nobody else's: any unknown key is refused (a misspelled store would write elsewhere).
    expect(() => createLoci({ root, stor: join(workspace, 'elsewhere') } as never)).toThrow(/Unknown key "stor" in the createLoci options: did you mean "store"\?/);
    expect(() => createLoci({ root, cache: true } as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: 'Unknown key "cache" in the createLoci options.' }));
    expect(existsSync(join(workspace, 'elsewhere'))).toBe(false);
    // What the CLI passes: process.env itself, which is no plain object.
    await createLoci({ root, env: process.env, inMemory: false }).close();
  });
});
