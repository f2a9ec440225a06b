// The indexing worker, driven through the built library (dist/): the worker file exists only
// after the build, so these run against what users install.
import { getPriority } from 'node:os';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';

type Library = typeof import('../../src/index.js');
type IndexEvent = Parameters<NonNullable<import('../../src/index.js').RunOptions['onProgress']>>[0];
let library: Library;
let workspace: string;
let repo: string;
const FILES = 300;

beforeAll(async () => {
  library = (await import(join(process.cwd(), 'dist/index.js'))) as Library;
  workspace = await mkdtemp(join(tmpdir(), 'loci-worker-'));
  repo = join(workspace, 'repo');
  await mkdir(join(repo, 'src'), { recursive: true });
  for (let file = 0; file < FILES; file++) {
    const body = Array.from({ length: 30 }, (_, line) => `  const value${line} = input.length * ${line} + ${file}; // step ${line} of parser ${file}`).join('\n');
    await writeFile(join(repo, 'src', `parser${file}.ts`), `export function parseRecord${file}(input: string): number {\n${body}\n  return value29;\n}\n`);
  }
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('indexing on a worker thread', () => {
  it('indexes at lowered priority off the calling thread, relays every event, and is searchable from the caller', async () => {
    const store = join(workspace, 'store-a');
    const loci = library.createLoci({ root: repo, store });
    const events: IndexEvent[] = [];
    const summary = await loci.index({ onProgress: (event) => events.push(event) });
    expect(summary.files.added).toBe(FILES);
    const started = events.find((event) => event.type === 'worker-started');
    expect(started).toMatchObject({ type: 'worker-started', niceness: 10 });
    expect(getPriority()).toBe(0); // only the worker thread was lowered
    expect(events.filter((event) => event.type === 'file-indexed')).toHaveLength(FILES);
    expect(events.at(-1)?.type).toBe('index-finished');
    const hits = await loci.search('parseRecord17', { topK: 3 });
    expect(hits.results[0]?.path).toBe('src/parser17.ts');
    await loci.close();
  });

  it('indexes in-process when the worker is switched off, with the same result', async () => {
    const worker = library.createLoci({ root: repo, store: join(workspace, 'store-a') });
    const inline = library.createLoci({ root: repo, store: join(workspace, 'store-b'), config: { indexing: { worker: false } } });
    const events: IndexEvent[] = [];
    const summary = await inline.index({ onProgress: (event) => events.push(event) });
    expect(events.some((event) => event.type === 'worker-started')).toBe(false);
    expect(summary.chunks.total).toBe((await worker.status()).chunks);
    await Promise.all([worker.close(), inline.close()]);
  });

  it('stops on abort between files, leaves a sound store, and the next run resumes', async () => {
    const store = join(workspace, 'store-c');
    const loci = library.createLoci({ root: repo, store });
    const controller = new AbortController();
    let indexed = 0;
    const run = loci.index({
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === 'file-indexed' && ++indexed === 5) controller.abort();
      },
    });
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    const db = new Database(join(store, 'index.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const committed = (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
    db.close();
    expect(committed).toBeGreaterThanOrEqual(5);
    expect(committed).toBeLessThan(FILES);
    const resumed = await loci.index();
    expect(resumed.files.added).toBe(FILES - committed);
    expect(resumed.files.unchanged).toBe(committed);
    await loci.close();
  });

  it('brings an error from the worker back with its code', async () => {
    const gone = join(workspace, 'vanishing');
    await mkdir(gone);
    const loci = library.createLoci({ root: gone, store: join(workspace, 'store-d') });
    await rm(gone, { recursive: true });
    await expect(loci.index()).rejects.toMatchObject({ name: 'LociError', code: 'ROOT_NOT_FOUND' });
    await loci.close();
  });
});
