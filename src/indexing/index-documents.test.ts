import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHUNKER_FINGERPRINT } from '../chunk/index.js';
import { loadConfig } from '../config/load.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/spec.js';
import type { IndexEvent } from './events.js';
import { type DocumentSource, indexDocuments, type LociDocument } from './index-documents.js';

let folder: string;
let store: Store;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-documents-'));
  store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
});

afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

const documentsOf = (count: number, from = 0): LociDocument[] =>
  Array.from({ length: count }, (_, index) => ({ id: `doc/${from + index}`, text: `Document ${from + index} is about topic ${(from + index) % 7}.` }));

const run = (documents: DocumentSource, options: { prune?: boolean; events?: IndexEvent[]; signal?: AbortSignal } = {}) =>
  indexDocuments({
    documents,
    store,
    model: undefined,
    embedderId: 'none',
    chunker: CHUNKER_FINGERPRINT,
    chunking: loadConfig().chunking,
    prepareInWorker: false,
    windowSize: 4,
    ...(options.prune ? { prune: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.events ? { onProgress: (event: IndexEvent) => options.events?.push(event) } : {}),
  });

describe('indexDocuments from a stream', () => {
  it('indexes an async generator a window at a time, with the total growing as it is read, like the same list', async () => {
    let readAhead = 0;
    const events: IndexEvent[] = [];
    const indexed = () => events.filter((event) => event.type === 'file-indexed').length;
    async function* generate(): AsyncGenerator<LociDocument> {
      for (const [index, document] of documentsOf(10).entries()) {
        // Never more than a window ahead of what was written.
        readAhead = Math.max(readAhead, index - indexed());
        yield document;
      }
    }
    const summary = await run(generate(), { events });
    expect(summary.files.indexed).toBe(10);
    expect(readAhead).toBe(3);
    const totals = events.flatMap((event) => (event.type === 'file-indexed' ? [event.total] : []));
    expect(totals[0]).toBe(4);
    expect(totals.at(-1)).toBe(10);
    expect((await store.listCatalog()).map((entry) => entry.path).sort()).toEqual(
      documentsOf(10)
        .map((document) => document.id)
        .sort(),
    );
    // A second run over the same stream changes nothing; a plain iterable works too.
    const again = await run(documentsOf(10)[Symbol.iterator]());
    expect(again.files).toMatchObject({ indexed: 0, unchanged: 10 });
  });

  it('prunes what a stream did not name once it has ended, and keeps the windows written before a failing source', async () => {
    await run(documentsOf(10));
    const pruned = await run(
      (function* () {
        yield* documentsOf(6);
      })(),
      { prune: true },
    );
    expect(pruned.files.removed).toBe(4);
    expect((await store.listCatalog()).length).toBe(6);

    async function* failing(): AsyncGenerator<LociDocument> {
      yield* documentsOf(9, 100);
      throw new Error('the source broke');
    }
    await expect(run(failing())).rejects.toThrow('the source broke');
    // The two full windows (8 documents) were written; the third was still being read.
    expect((await store.listCatalog()).filter((entry) => entry.path.startsWith('doc/1')).length).toBeGreaterThanOrEqual(8);
  });

  it('names what is wrong: a document of a stream by its place, a repeated id across windows, a source that is not one', async () => {
    await expect(
      run(
        (async function* () {
          yield* documentsOf(5);
          yield { id: 'x' } as LociDocument;
        })(),
      ),
    ).rejects.toThrow('Document 5 needs `text` as a string');
    await expect(run([{ id: 'a', text: 'x', tittle: 'T' } as LociDocument])).rejects.toThrow('Unknown key "tittle" in the document 0: did you mean "title"?');
    expect((await run([{ id: 'b', text: 'x', url: 'https://example.com', _source: 'beir' } as LociDocument])).files.added).toBe(1);
    await expect(run([...documentsOf(5), ...documentsOf(1)][Symbol.iterator]())).rejects.toThrow('Document id "doc/0" appears twice');
    await expect(run('hello' as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('got string') });
    await expect(run(42 as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('got number') });
  });

  it('removes nothing when a pruning list repeats an id or a pruning source is empty, and tells each removal', async () => {
    await run(documentsOf(10));
    await expect(run([...documentsOf(3), ...documentsOf(1)], { prune: true })).rejects.toThrow('Document id "doc/0" appears twice');
    expect((await store.listCatalog()).length).toBe(10);
    // No documents with prune would empty the index: refused, nothing removed.
    for (const empty of [[], [][Symbol.iterator](), (async function* () {})()] as DocumentSource[]) {
      await expect(run(empty, { prune: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('would remove all 10 indexed documents') });
    }
    expect((await store.listCatalog()).length).toBe(10);
    const events: IndexEvent[] = [];
    await run(documentsOf(7), { prune: true, events });
    expect(events.flatMap((event) => (event.type === 'file-removed' ? [event.path] : [])).sort()).toEqual(['doc/7', 'doc/8', 'doc/9']);
  });

  it('stops a stream as soon as it is aborted, even while its source is waiting', async () => {
    const controller = new AbortController();
    const events: IndexEvent[] = [];
    async function* slow(): AsyncGenerator<LociDocument> {
      for (const document of documentsOf(12, 200)) {
        if (document.id === 'doc/206') {
          // The second window is being read when the source stalls (a cursor waiting on its server).
          setTimeout(() => controller.abort(), 20);
          await new Promise(() => {});
        }
        yield document;
      }
    }
    await expect(run(slow(), { signal: controller.signal, events })).rejects.toMatchObject({ code: 'ABORTED' });
    const written = (await store.listCatalog()).filter((entry) => /^doc\/2\d\d$/.test(entry.path)).length;
    expect(written).toBe(4);
  });
});
