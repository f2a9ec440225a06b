import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoci } from '../engine/create-loci.js';
import type { IndexEvent } from './events.js';
import { fakeSecrets } from '../sources/test-support/hostile-tree.js';
import { CONTENT_SKIPS_STATE, ContentSkips } from './content-skips.js';

/** A store's state table alone. */
function stateStore(initial?: string) {
  const state = new Map<string, string>(initial === undefined ? [] : [[CONTENT_SKIPS_STATE, initial]]);
  return {
    state,
    readState: async (key: string) => state.get(key),
    writeState: async (key: string, value: string) => void state.set(key, value),
  };
}

describe('ContentSkips', () => {
  it('remembers binary and secret refusals by size and mtime, and forgets a file that changed, was indexed or is gone', async () => {
    const store = stateStore();
    const skips = await ContentSkips.read(store);
    const blob = { path: 'data/blob.txt', size: 10, mtimeMs: 1000 };
    const key = { path: 'keys.py', size: 20, mtimeMs: 2000 };
    skips.note(blob, 'binary');
    skips.note(key, 'secret-content');
    skips.note({ path: 'broken.py', size: 5, mtimeMs: 5 }, 'chunk-error'); // tried again next run
    await skips.write(store);
    const again = await ContentSkips.read(store);
    expect(again.refused(blob, false)).toBe('binary');
    expect(again.refused(key, false)).toBe('secret-content');
    expect(again.refused(key, true)).toBeUndefined(); // secrets indexed now: read it
    expect(again.refused({ ...blob, mtimeMs: 1001 }, false)).toBeUndefined();
    expect(again.refused({ ...blob, size: 11 }, false)).toBeUndefined();
    expect(again.refused({ path: 'broken.py', size: 5, mtimeMs: 5 }, false)).toBeUndefined();
    again.note(key, undefined); // indexed since
    again.retain((path) => path !== 'data/blob.txt'); // gone
    await again.write(store);
    const last = await ContentSkips.read(store);
    expect(last.refused(blob, false)).toBeUndefined();
    expect(last.refused(key, false)).toBeUndefined();
  });

  it('does not trust a refusal of a file changed just before it was read, and keeps a file named __proto__', async () => {
    const store = stateStore();
    const skips = await ContentSkips.read(store);
    const fresh = { path: 'deploy.py', size: 20, mtimeMs: Date.now() - 500 };
    const proto = { path: '__proto__', size: 3, mtimeMs: 1000 };
    skips.note(fresh, 'secret-content');
    skips.note(proto, 'binary');
    await skips.write(store);
    const again = await ContentSkips.read(store);
    // Changed within the mtime's resolution of the read, it may have changed again unseen: read it again.
    expect(again.refused(fresh, false)).toBeUndefined();
    expect(again.refused(proto, false)).toBe('binary');
  });

  it('reads a damaged, foreign or older record as none, and writes nothing when nothing changed', async () => {
    for (const kept of ['{', 'null', '[]', '{"format":0,"files":{"a":[1,2,"binary"]}}', '{"format":1,"files":{"a":[1,2,"ignored",3],"b":["1",2,"binary",3],"c":7,"d":[1,2,"binary"]}}']) {
      const store = stateStore(kept);
      const skips = await ContentSkips.read(store);
      for (const path of ['a', 'b', 'c', 'd']) expect(skips.refused({ path, size: 1, mtimeMs: 2 }, false)).toBeUndefined();
      await skips.write(store);
      expect(store.state.get(CONTENT_SKIPS_STATE)).toBe(kept);
    }
  });
});

describe('files refused for their content', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'loci-content-skips-'));
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src', 'app.py'), 'def handler():\n    return 1\n');
    // No binary extension: only its bytes say it is binary.
    await writeFile(join(root, 'src', 'exe_with_zip'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3, 0, 9]));
    await writeFile(join(root, 'src', 'deploy.py'), `TOKEN = "${fakeSecrets.githubToken}"\n`);
    // Written an hour ago: a refusal of a file changed just before it was read is not trusted (racy).
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const name of ['app.py', 'exe_with_zip', 'deploy.py']) await utimes(join(root, 'src', name), hourAgo, hourAgo);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('are not read again while unchanged, are not "new" in status, and are read again once changed', async () => {
    const loci = createLoci({ root, config: { indexing: { worker: false } } });
    try {
      const skippedPaths = async (): Promise<{ summary: Awaited<ReturnType<typeof loci.index>>; paths: string[] }> => {
        const paths: string[] = [];
        const summary = await loci.index({ onProgress: (event: IndexEvent) => void (event.type === 'file-skipped' && paths.push(event.path)) });
        return { summary, paths: paths.sort() };
      };
      const first = await skippedPaths();
      expect(first.paths).toEqual(['src/deploy.py', 'src/exe_with_zip']);
      expect(first.summary.skipped).toMatchObject({ binary: 1, 'secret-content': 1 });
      expect((await loci.status()).changes).toEqual({ modified: [], added: [], deleted: [], excluded: [] });

      // Unchanged: counted as skipped again, without being read.
      const second = await skippedPaths();
      expect(second.paths).toEqual([]);
      expect(second.summary.skipped).toMatchObject({ binary: 1, 'secret-content': 1 });
      expect(second.summary.files.indexed).toBe(0);

      // Changed into text: new in status, read and indexed by the next run, then neither.
      await writeFile(join(root, 'src', 'exe_with_zip'), 'def unpack_archive():\n    return 2\n');
      await utimes(join(root, 'src', 'exe_with_zip'), new Date(), new Date(Date.now() + 5000));
      expect((await loci.status()).changes?.added).toEqual(['src/exe_with_zip']);
      const third = await skippedPaths();
      expect(third.paths).toEqual([]);
      expect(third.summary.files.indexed).toBe(1);
      expect(third.summary.skipped).toMatchObject({ binary: 0, 'secret-content': 1 });
      expect((await loci.search('unpack_archive', { mode: 'lexical' })).results[0]?.path).toBe('src/exe_with_zip');
      expect((await loci.status()).changes?.added).toEqual([]);
    } finally {
      await loci.close();
    }
  });

  it('a remembered secret is read and indexed once secrets are indexed, and a watcher-style run of paths keeps the record too', async () => {
    const withheld = createLoci({ root, config: { indexing: { worker: false } } });
    try {
      await withheld.index();
      const paths = await withheld.indexPaths(['src/exe_with_zip', 'src/deploy.py']);
      expect(paths.skipped).toMatchObject({ binary: 1, 'secret-content': 1 });
    } finally {
      await withheld.close();
    }
    const opted = createLoci({ root, config: { indexing: { worker: false }, sources: { indexSecrets: true } } });
    try {
      const summary = await opted.index();
      expect(summary.files.indexed).toBe(1);
      expect(summary.skipped).toMatchObject({ binary: 1, 'secret-content': 0 });
      expect((await opted.status()).changes?.added).toEqual([]);
    } finally {
      await opted.close();
    }
  });
});
