// The graph search thread, driven through the built library (dist/): the worker file exists
// only after the build.
import { execFile } from 'node:child_process';
import { closeSync, existsSync, openSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

type VectorIndexModule = typeof import('../../src/retrieve/warm/exact-or-graph-vector-index.js');
type ThreadModule = typeof import('../../src/retrieve/warm/graph-search-thread.js');
type UsearchModule = typeof import('../../src/retrieve/warm/usearch-graph.js');
type GraphSearchThread = InstanceType<ThreadModule['GraphSearchThread']>;
type VectorIndex = InstanceType<VectorIndexModule['ExactOrGraphVectorIndex']>;

const dist = (path: string) => import(join(process.cwd(), 'dist', path));
const DIMENSIONS = 24;

function clustered(count: number, seed: number): Float32Array[] {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const centers = Array.from({ length: 30 }, () => Float32Array.from({ length: DIMENSIONS }, next));
  return Array.from({ length: count }, (_, index) => Float32Array.from(centers[index % 30] as Float32Array, (value) => value + 0.4 * next()));
}

const vectors = clustered(3000, 5);
const queries = clustered(40, 77);
const meta = (rowId: number) => ({ path: `src/file${rowId}.ts`, language: 'typescript' });

let folder: string;
const threads: GraphSearchThread[] = [];
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-graph-thread-'));
});
afterEach(async () => {
  for (const thread of threads.splice(0)) await thread.close();
  await rm(folder, { recursive: true, force: true });
});

async function load() {
  const { ExactOrGraphVectorIndex } = (await dist('retrieve/warm/exact-or-graph-vector-index.js')) as VectorIndexModule;
  const { GraphSearchThread } = (await dist('retrieve/warm/graph-search-thread.js')) as ThreadModule;
  const file = join(folder, 'vectors.hnsw');
  const options = { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64, file };
  const withRows = () => {
    const index = new ExactOrGraphVectorIndex(DIMENSIONS, options);
    vectors.forEach((vector, rowId) => index.add(rowId, vector, meta(rowId)));
    index.ensureGraph();
    return index;
  };
  // Built, saved, then mapped by a second index of the same rows (as a new process does).
  withRows().persist();
  const mapped = withRows();
  expect(mapped.mapped).toBe(true);
  /** A thread whose answers are counted (undefined: answered on the calling thread). */
  const thread = (options: ConstructorParameters<ThreadModule['GraphSearchThread']>[0] = {}) => {
    // A generous reply time: a loaded machine must not make a reply late here.
    const made = new GraphSearchThread({ startAfter: 0, replyTimeoutMs: 30_000, ...options });
    threads.push(made);
    const counts = { answered: 0, declined: 0 };
    const search = made.search.bind(made);
    made.search = (...args) => {
      const asked = search(...args);
      if (!asked) counts.declined++;
      return asked?.then((keys) => {
        if (keys) counts.answered++;
        else counts.declined++;
        return keys;
      });
    };
    return { thread: made, counts };
  };
  return { ExactOrGraphVectorIndex, GraphSearchThread, mapped, withRows, thread, file, options };
}

/** Searches until the worker answers (it starts at the first and loads in the background), at most 10 s. */
async function untilRunning(index: VectorIndex, thread: GraphSearchThread): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!thread.running && Date.now() < deadline) {
    await index.searchOn(thread, queries[0] as Float32Array, 10);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(thread.running).toBe(true);
}

/**
 * Starts the thread's worker (startAfter 0: the first search does), then waits for it without
 * searching: on a loaded machine a search could find it ready just then and go to it, and a
 * worker that never answers would count that search as a late reply.
 */
async function untilRunningUnasked(index: VectorIndex, thread: GraphSearchThread): Promise<void> {
  await index.searchOn(thread, queries[0] as Float32Array, 10);
  const deadline = Date.now() + 10_000;
  while (!thread.running && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(thread.running).toBe(true);
}

describe('graph search thread', () => {
  it('answers exactly what the calling thread answers, filtered or not, from the mapped file', async () => {
    const { mapped, thread } = await load();
    const { thread: worker, counts } = thread();
    await untilRunning(mapped, worker);
    counts.answered = 0;
    // Every other file: a broad filter, answered from the graph oversampled.
    const broad = (path: string) => Number(/\d+/.exec(path)?.[0]) % 2 === 0;
    for (const query of queries) {
      expect(await mapped.searchOn(worker, query, 10)).toEqual(mapped.search(query, 10));
      expect(await mapped.searchOn(worker, query, 25, broad)).toEqual(mapped.search(query, 25, broad));
    }
    expect(counts.answered).toBe(queries.length * 2);
  });

  it('maps a file named before any search (prepare), so the first search is answered there, waiting behind that mapping', async () => {
    const { thread, ExactOrGraphVectorIndex, options } = await load();
    // As a new process: the saved graph identified before its rows are read (WarmIndex, at its first catch-up).
    const index = new ExactOrGraphVectorIndex(DIMENSIONS, options);
    const saved = index.savedGraphFile();
    expect(saved?.keys).toBe(vectors.length);
    vectors.forEach((vector, rowId) => index.add(rowId, vector, meta(rowId)));
    index.ensureGraph();
    const { thread: worker, counts } = thread({ startAfter: 1_000 }); // never started by searches alone
    // Searched at once: the worker cannot be ready yet, and takes the search after mapping the file.
    worker.prepare(saved);
    const query = queries[2] as Float32Array;
    const first = await index.searchOn(worker, query, 10);
    expect(counts).toEqual({ answered: 1, declined: 0 });
    expect(first).toEqual(index.search(query, 10));
  });

  it('refuses a graph file damaged since it was saved before usearch reads it, and the search is exact here', async () => {
    const { thread, ExactOrGraphVectorIndex, options, file } = await load();
    // Its middle overwritten in place, the size kept: only the sum saved with the key list tells.
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(Math.floor(size / 2), 0x5a), 0, Math.floor(size / 2), Math.floor(size / 4));
    closeSync(fd);
    const index = new ExactOrGraphVectorIndex(DIMENSIONS, options);
    const saved = index.savedGraphFile();
    expect(saved?.sum?.bytes).toBe(size);
    vectors.forEach((vector, rowId) => index.add(rowId, vector, meta(rowId)));
    index.ensureGraph();
    const { thread: worker, counts } = thread({ startAfter: 1_000 });
    worker.prepare(saved);
    const exact = new ExactOrGraphVectorIndex(DIMENSIONS, { ...options, threshold: 1_000_000, file: join(folder, 'none.hnsw') });
    vectors.forEach((vector, rowId) => exact.add(rowId, vector, meta(rowId)));
    for (const query of queries.slice(0, 3)) expect(await index.searchOn(worker, query, 10)).toEqual(exact.search(query, 10));
    expect(counts.answered).toBe(0);
    expect(index.mapped).toBe(false);
    // Left for the next save to replace (another process may be between the renames of its save).
    expect(existsSync(file) && existsSync(`${file}.keys`)).toBe(true);
  });

  it('is used by a caller that never yields to the event loop between searches', async () => {
    const { mapped, thread } = await load();
    const { thread: worker, counts } = thread();
    // Searches answered on the calling thread finish within their microtasks: before the reply
    // port was read at once, the worker's ready message, an event, never arrived in this loop.
    // The first search the worker takes comes before the event loop's first turn.
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    let turnedWhenTaken: boolean | undefined;
    const search = worker.search.bind(worker);
    worker.search = (...args) => {
      const asked = search(...args);
      if (asked && turnedWhenTaken === undefined) turnedWhenTaken = turned;
      return asked;
    };
    const deadline = Date.now() + 10_000;
    for (let round = 0; counts.answered < 5 && Date.now() < deadline; round++) {
      const query = queries[round % queries.length] as Float32Array;
      expect(await mapped.searchOn(worker, query, 10)).toEqual(mapped.search(query, 10));
    }
    expect(counts.answered).toBe(5);
    expect(turnedWhenTaken).toBe(false);
    expect(worker.running).toBe(true);
  });

  it('searches on the calling thread when rows change while the worker walks, or the graph is in memory', async () => {
    const { thread, ExactOrGraphVectorIndex, options, file } = await load();
    const { thread: worker, counts } = thread();
    // Mapped with no room for changes beside it: the first change reads the graph into memory.
    const mapped = new ExactOrGraphVectorIndex(DIMENSIONS, { ...options, file, viewDelta: 0 });
    vectors.forEach((vector, rowId) => mapped.add(rowId, vector, meta(rowId)));
    mapped.ensureGraph();
    expect(mapped.mapped).toBe(true);
    await untilRunning(mapped, worker);
    const query = queries[3] as Float32Array;
    const answered = counts.answered;
    const pending = mapped.searchOn(worker, query, 10);
    // After the request left, before its answer: a row equal to the query (the nearest of all),
    // which the file the worker walks has never held.
    mapped.add(99_999, query, meta(99_999));
    expect(mapped.mapped).toBe(false);
    const found = await pending;
    expect(counts.answered).toBe(answered + 1);
    expect(found?.[0]?.rowId).toBe(99_999);
    expect(found).toEqual(mapped.search(query, 10));
    // Its graph now in memory, the next search lets the worker go (and the file it mapped).
    expect(worker.running).toBe(true);
    expect(await mapped.searchOn(worker, query, 10)).toEqual(mapped.search(query, 10));
    expect(worker.running).toBe(false);

    // A graph read into memory (no file) is never sent.
    const inMemory = new ExactOrGraphVectorIndex(DIMENSIONS, { ...options, file: undefined });
    vectors.forEach((vector, rowId) => inMemory.add(rowId, vector, meta(rowId)));
    inMemory.ensureGraph();
    const asked = counts.answered + counts.declined;
    expect(await inMemory.searchOn(worker, query, 10)).toEqual(inMemory.search(query, 10));
    expect(counts.answered + counts.declined).toBe(asked);
    // A mapped file asked for later starts a new worker, which answers.
    const remapped = (await load()).mapped;
    await untilRunning(remapped, worker);
    const before = counts.answered;
    expect(await remapped.searchOn(worker, query, 10)).toEqual(remapped.search(query, 10));
    expect(counts.answered).toBe(before + 1);

    // The holder replaced the index meanwhile: no answer from it (the holder asks the new one).
    const again = await load();
    const { thread: second } = thread();
    await untilRunning(again.mapped, second);
    expect(await again.mapped.searchOn(second, query, 10, undefined, () => false)).toBeUndefined();
  });

  it("refuses a graph file replaced since it was mapped here, and the answer stays the mapped graph's", async () => {
    const { mapped, thread, file } = await load();
    const { loadUsearch, createGraph } = (await dist('retrieve/warm/usearch-graph.js')) as UsearchModule;
    const { thread: worker, counts } = thread({ startAfter: 0 });
    const expected = queries.map((query) => mapped.search(query, 10));
    // Another process saves a different graph under the same name (through a rename, as loci saves).
    const other = createGraph(loadUsearch() as NonNullable<ReturnType<typeof loadUsearch>>, DIMENSIONS, { connectivity: 16, expansionAdd: 64, expansionSearch: 64 });
    const rows = clustered(vectors.length, 9); // as many keys: only its identity tells it apart
    other.add(
      BigUint64Array.from(rows, (_, index) => BigInt(index)),
      Float32Array.from(rows.flatMap((row) => [...row])),
    );
    other.save(`${file}.other`);
    renameSync(`${file}.other`, file);
    const deadline = Date.now() + 10_000;
    while (!worker.running && Date.now() < deadline) {
      await mapped.searchOn(worker, queries[0] as Float32Array, 10);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const [index, query] of queries.entries()) expect(await mapped.searchOn(worker, query, 10)).toEqual(expected[index]);
    expect(counts.answered).toBe(0);
  });

  it('answers on the calling thread when the worker dies, hangs or is closed', async () => {
    const { mapped, thread } = await load();
    const query = queries[7] as Float32Array;
    const expected = mapped.search(query, 10);
    const script = (name: string, body: string) => {
      const path = join(folder, name);
      // Ready, on the reply port the thread gives its worker (workerData.replies).
      writeFileSync(path, `import { parentPort, workerData } from 'node:worker_threads';\nworkerData.replies.postMessage({ ready: true });\n${body}\n`);
      return pathToFileURL(path);
    };

    const dying = thread({ workerFile: script('dies.mjs', "parentPort.on('message', () => { throw new Error('boom'); });") });
    await untilRunning(mapped, dying.thread);
    expect(await mapped.searchOn(dying.thread, query, 10)).toEqual(expected);
    expect(dying.thread.running).toBe(false);
    expect(await mapped.searchOn(dying.thread, query, 10)).toEqual(expected);

    // One late reply is answered here and the worker kept (a busy calling thread makes replies
    // late too); three in a row stop it.
    const silent = thread({ workerFile: script('hangs.mjs', "parentPort.on('message', () => {});"), replyTimeoutMs: 200 });
    await untilRunningUnasked(mapped, silent.thread);
    for (let late = 1; late <= 3; late++) {
      expect(silent.thread.running).toBe(true);
      expect(await mapped.searchOn(silent.thread, query, 10)).toEqual(expected);
    }
    expect(silent.thread.running).toBe(false);
    expect(await mapped.searchOn(silent.thread, query, 10)).toEqual(expected);
    // Late together (one busy stretch of the worker, such as a new file checked and mapped): one stall, the worker kept.
    const busy = thread({ workerFile: script('busy.mjs', "parentPort.on('message', () => {});"), replyTimeoutMs: 200 });
    await untilRunningUnasked(mapped, busy.thread);
    expect(await Promise.all([1, 2, 3, 4].map(() => mapped.searchOn(busy.thread, query, 10)))).toEqual([expected, expected, expected, expected]);
    expect(busy.thread.running).toBe(true);
    expect(dying.counts.answered + silent.counts.answered + busy.counts.answered).toBe(0);

    const { thread: closed } = thread();
    await untilRunning(mapped, closed);
    const inFlight = mapped.searchOn(closed, query, 10);
    await closed.close();
    expect(await inFlight).toEqual(expected);
    expect(await mapped.searchOn(closed, query, 10)).toEqual(expected);
  });

  it('keeps a process alive while a reply is awaited, and never once idle: a process that does not close exits', async () => {
    const child = join(folder, 'child.mjs');
    const url = (path: string) => pathToFileURL(join(process.cwd(), 'dist', path)).href;
    writeFileSync(
      child,
      `import { ExactOrGraphVectorIndex } from '${url('retrieve/warm/exact-or-graph-vector-index.js')}';
import { GraphSearchThread } from '${url('retrieve/warm/graph-search-thread.js')}';
let state = 5;
const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
const options = { threshold: 100, connectivity: 16, expansionAdd: 64, expansionSearch: 64, file: ${JSON.stringify(join(folder, 'child.hnsw'))} };
const rows = Array.from({ length: 2000 }, () => Float32Array.from({ length: ${DIMENSIONS} }, next));
const build = () => { const index = new ExactOrGraphVectorIndex(${DIMENSIONS}, options); rows.forEach((row, id) => index.add(id, row, { path: 'f' + id, language: 'x' })); index.ensureGraph(); return index; };
build().persist();
const mapped = build();
const thread = new GraphSearchThread({ startAfter: 0, replyTimeoutMs: 30_000 });
let answered = 0;
if (process.argv[2] === 'start-only') {
  // The worker started by this search, never asked anything: the process still ends.
  await mapped.searchOn(thread, rows[0], 10);
  console.log(JSON.stringify({ answered, running: thread.running }));
  process.exitCode = 0;
} else {
const search = thread.search.bind(thread);
thread.search = (...args) => search(...args)?.then((keys) => { if (keys) answered++; return keys; });
const deadline = Date.now() + 20_000;
for (let round = 0; Date.now() < deadline && answered < 20; round++) {
  await mapped.searchOn(thread, rows[round % rows.length], 10);
  // Only what is awaited keeps this process alive: no timer between searches once the worker runs.
  if (!thread.running) await new Promise((resolve) => setTimeout(resolve, 10));
}
console.log(JSON.stringify({ answered, running: thread.running }));
}
`,
    );
    const started = Date.now();
    const { stdout } = await promisify(execFile)(process.execPath, [child], { timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({ answered: 20, running: true });
    const startOnly = await promisify(execFile)(process.execPath, [child, 'start-only'], { timeout: 30_000 });
    expect(JSON.parse(startOnly.stdout)).toEqual({ answered: 0, running: false });
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
