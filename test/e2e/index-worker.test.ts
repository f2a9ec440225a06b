// The indexing worker, driven through the built library (dist/): the worker file exists only
// after the build, so these run against what users install.
import { getPriority } from 'node:os';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

  it('indexes in-process when the worker is switched off, with the same rows (the prepare worker chunked the first run)', async () => {
    const worker = library.createLoci({ root: repo, store: join(workspace, 'store-a') });
    const inline = library.createLoci({ root: repo, store: join(workspace, 'store-b'), config: { indexing: { worker: false } } });
    const events: IndexEvent[] = [];
    const summary = await inline.index({ onProgress: (event) => events.push(event) });
    expect(events.some((event) => event.type === 'worker-started')).toBe(false);
    expect(summary.chunks.total).toBe((await worker.status()).chunks);
    await Promise.all([worker.close(), inline.close()]);
    // Every chunk and its term counts, by content (row ids and lexicon ids may differ).
    const { decodeTerms } = await import('../../src/lexical/codec.js');
    const rows = (store: string) => {
      const db = new Database(join(workspace, store, 'index.db'), { readonly: true });
      try {
        const lexicon = new Map(db.prepare('SELECT id, term FROM lexicon').raw().all() as Array<[number, string]>);
        const chunks = db
          .prepare(
            'SELECT c.chunk_id, c.content_hash, c.path, c.start_line, c.end_line, c.kind, c.symbol, c.symbols, c.text, t.data FROM chunks c JOIN chunk_terms t ON t.chunk = c.id ORDER BY c.path, c.start_line',
          )
          .raw()
          .all() as unknown[][];
        const files = db.prepare('SELECT path, content_hash, chunk_count, attributes FROM files ORDER BY path').raw().all();
        return {
          files,
          chunks: chunks.map((row) => {
            const terms = decodeTerms(row[9] as Uint8Array);
            const counts = [...terms.termIds].map((id, index) => `${lexicon.get(id)}:${[...terms.frequencies.subarray(index * 4, index * 4 + 4)].join(',')}`).sort();
            return [...row.slice(0, 9), terms.fieldLengths.join(','), counts.join(' ')];
          }),
        };
      } finally {
        db.close();
      }
    };
    const [fromWorkers, fromThread] = [rows('store-a'), rows('store-b')];
    expect(fromWorkers.chunks.length).toBeGreaterThanOrEqual(FILES);
    expect(fromWorkers).toEqual(fromThread);
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

describe('the prepare worker', () => {
  it('prepares files exactly as the calling thread does, each answer to its own caller, and refuses work after the run ends', async () => {
    const { workerPreparer, inProcessPreparer } = (await import(join(process.cwd(), 'dist/indexing/preparer.js'))) as typeof import('../../src/indexing/preparer.js');
    const preparer = workerPreparer();
    expect(preparer?.parallel).toBe(true);
    const input = {
      path: 'src/parser1.ts',
      text: 'export function parseRecord(input: string): number {\n  return input.length;\n}\n\nexport class Reader {\n  read() { return 1; }\n}\n',
      language: 'typescript',
      chunking: { tokenBudget: 500, windowLines: 100, windowOverlap: 10 },
      pathIsContent: true,
    };
    const [inWorker, inThread] = await Promise.all([preparer?.prepare(input), inProcessPreparer().prepare(input)]);
    expect(inWorker?.chunks.length).toBeGreaterThan(0);
    // Term statistics point into each side's own list: compare the terms they name.
    type Prepared = Awaited<ReturnType<ReturnType<typeof inProcessPreparer>['prepare']>>;
    const named = (file: Prepared | undefined) => ({
      ...file,
      chunks: file?.chunks.map((chunk) => {
        const { table, refs, ...rest } = chunk.write.termStats;
        return { ...chunk, write: { ...chunk.write, termStats: { ...rest, terms: Array.from(refs, (ref) => table.terms[ref]) } } };
      }),
    });
    expect(named(inWorker)).toEqual(named(inThread));
    expect(named(inWorker).chunks?.[0]?.write.termStats.terms).toContain('parserecord');
    // Later answers point into the same list on this side, with the terms the worker added meanwhile.
    const later = await preparer?.prepare({ ...input, path: 'src/other.ts', text: 'export function parseRecord(): void {}\nexport const freshTermHere = 1;\n' });
    expect(named(later).chunks?.flatMap((chunk) => chunk.write.termStats.terms)).toEqual(expect.arrayContaining(['parserecord', 'freshtermhere', 'fresh']));
    // Many at once come back to the right callers.
    const many = await Promise.all(Array.from({ length: 50 }, (_, index) => preparer?.prepare({ ...input, path: `src/p${index}.ts`, text: `export const value${index} = ${index};\n` })));
    expect(many.map((file) => file?.chunks[0]?.write.text)).toEqual(Array.from({ length: 50 }, (_, index) => `export const value${index} = ${index};`));
    await preparer?.close();
    await expect(preparer?.prepare(input)).rejects.toThrow(/the run has ended/);
    // One worker answers in the order asked, a file at a time: the first file handed over is
    // not held back until the rest are done (files started together interleaved, and a run's
    // first commit waited for all of them).
    const one = workerPreparer(1);
    const body = Array.from({ length: 80 }, (_, index) => `def step_${index}(value):\n    """Step ${index}."""\n    return value + ${index}\n`).join('\n');
    const answered: number[] = [];
    const python = { ...input, language: 'python' };
    const asked = performance.now();
    const at: number[] = [];
    await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        one?.prepare({ ...python, path: `pkg/m${index}.py`, text: `${body}\n# ${index}\n` }).then(() => {
          answered.push(index);
          at[index] = performance.now() - asked;
        }),
      ),
    );
    expect(answered).toEqual(Array.from({ length: 60 }, (_, index) => index));
    // Before: every answer came at the end (the first at 318 of 319 ms); now the first comes once
    // the worker has started and done one file (143 of 301 ms with two workers).
    expect(at[0] as number, `first answer at ${at[0]?.toFixed(0)} ms, last at ${at[59]?.toFixed(0)} ms`).toBeLessThan(0.85 * (at[59] as number));
    await one?.close();
  });

  it("shares files among several workers, each answer pointing into its own worker's terms, and loses none when a worker dies", async () => {
    const { workerPreparer, inProcessPreparer } = (await import(join(process.cwd(), 'dist/indexing/preparer.js'))) as typeof import('../../src/indexing/preparer.js');
    // The real worker, made to die on the file named `crash`: process.exit ends the worker thread
    // in the same turn, before the real handler (which awaits the chunker) can answer.
    const dying = join(workspace, 'dying-worker.mjs');
    await writeFile(
      dying,
      `import { parentPort } from 'node:worker_threads';\nimport ${JSON.stringify(pathToFileURL(join(process.cwd(), 'dist/indexing/prepare-worker.js')).href)};\nparentPort.on('message', (request) => { if (request.input.path === 'crash') process.exit(3); });\n`,
    );
    const preparer = workerPreparer(2, pathToFileURL(dying));
    const file = (index: number) => ({
      path: index === 7 ? 'crash' : `src/p${index}.ts`,
      text: `export function handler${index}(request: Request): Response {\n  return respond(request, ${index});\n}\n`,
      language: 'typescript',
      chunking: { tokenBudget: 500, windowLines: 100, windowOverlap: 10 },
      pathIsContent: true,
    });
    const terms = (one: Awaited<ReturnType<NonNullable<typeof preparer>['prepare']>> | undefined) =>
      one?.chunks.map((chunk) => Array.from(chunk.write.termStats.refs, (ref) => chunk.write.termStats.table.terms[ref]));
    const listsOf = (files: ReadonlyArray<Awaited<ReturnType<NonNullable<typeof preparer>['prepare']>> | undefined>) =>
      new Set(files.flatMap((one) => one?.chunks.map((chunk) => chunk.write.termStats.table) ?? []));
    // Twenty at once: both workers take some (their answers point into two lists), all as the calling thread makes them.
    const first = Array.from({ length: 20 }, (_, index) => file(20 + index));
    const shared = await Promise.all(first.map((input) => preparer?.prepare(input)));
    const reference = await Promise.all(first.map((input) => inProcessPreparer().prepare(input)));
    expect(shared.map(terms)).toEqual(reference.map(terms));
    expect(listsOf(shared).size).toBe(2);
    // Twenty more, the eighth of which kills its worker: every file still comes back right; the dead worker's are made here (a third list).
    const second = Array.from({ length: 20 }, (_, index) => file(index));
    const survived = await Promise.all(second.map((input) => preparer?.prepare(input)));
    const expected = await Promise.all(second.map((input) => inProcessPreparer().prepare(input)));
    expect(survived.map(terms)).toEqual(expected.map(terms));
    expect(survived.map((one) => one?.chunks[0]?.write.text)).toEqual(expected.map((one) => one.chunks[0]?.write.text));
    expect(listsOf([...shared, ...survived]).size).toBe(3);
    // After the crash the survivor takes every file.
    const after = await Promise.all(Array.from({ length: 10 }, (_, index) => preparer?.prepare(file(100 + index))));
    expect(after.map((one) => one?.chunks[0]?.write.text)).toEqual(Array.from({ length: 10 }, (_, index) => file(100 + index).text.trimEnd()));
    const survivor = [...listsOf(after)];
    expect(survivor).toHaveLength(1);
    expect(listsOf(shared).has(survivor[0] as never)).toBe(true);
    await preparer?.close();
  });
});
