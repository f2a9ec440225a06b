// A long-lived index's background read of its segment file: how long until every posting and
// the vector matrix are held (so no search reads the file), on which thread, the process's CPU
// and memory afterwards, and lexical search latency from the start (one query due every --every ms).
// Usage: node bench/background-read.mjs --store DIR [--build DIR] [--every 20] [--searches 200] [--json]
//   --store: a folder holding loci-store/ with a segment (bench/build-memory.mjs --keep DIR makes one)
//   --build: another loci checkout to run instead (its dist/; an older build reports no end
//   event, so its read is timed until the process's CPU stops rising, at most 120 s).
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchQueries } from './lib/dataset.mjs';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const root = argument('store');
if (!root) throw new Error('Pass --store DIR: a folder holding loci-store/ with a segment file.');
const every = Number(argument('every', '20'));
const folder = join(root, 'loci-store');
const segmentFile = readdirSync(folder).find((name) => name.startsWith('segment-') && name.endsWith('.seg'));
if (!segmentFile) throw new Error(`${folder} holds no segment file: index it first.`);
// The saved graph beside it, mapped as an engine maps it (never built here: a build would dwarf the read).
const graphName = readdirSync(folder).find((name) => name.startsWith('vectors-') && name.endsWith('.hnsw'));
const load = (path) => import(pathToFileURL(join(build, 'dist', path)).href);
const { WarmIndex } = await load('retrieve/warm/warm-index.js');
const { readSegmentHeader } = await load('store/segment-file.js');
const { openSqliteStore } = await load('store/sqlite/sqlite-store.js');
const { queryTerms } = await load('lexical/tokenize.js');

const file = join(folder, segmentFile);
const header = readSegmentHeader(file);
const store = openSqliteStore({ file: join(folder, 'index.db') });
const events = [];
const started = performance.now();
const index = new WarmIndex(store, {
  weights: header.weights,
  embedderId: header.embedderId,
  dimensions: header.dimensions,
  segmentFile: file,
  ...(graphName ? { graphFile: join(folder, graphName) } : {}),
  buildGraph: false,
  prefetch: true,
  onSegment: (event) => events.push({ ...event, at: performance.now() - started }),
});
await index.refresh();
const opened = performance.now() - started;
const queries = benchQueries(200, 7).map((text) => queryTerms(text));
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
// --searches lexical searches, one due every --every ms from the start: each timed from when it
// was due to its answer, so a search that waited behind the background read counts that wait.
const searches = Number(argument('searches', '200'));
const times = [];
for (let query = 0; query < searches; query++) {
  const due = performance.now() + every;
  await sleep(every);
  index.searchLexical(queries[query % queries.length], 10, undefined);
  times.push(performance.now() - due);
}
// Then until the end event (or, for a build without one, until the process's CPU stays under
// 10 % of a core for 2 s).
let lastCpu = cpu();
let still = 0;
const deadline = performance.now() + 120_000;
while (performance.now() < deadline && !events.some((event) => event.type === 'segment-prefetched' || event.type === 'segment-rejected')) {
  await sleep(500);
  const now = cpu();
  still = now - lastCpu < 0.05 ? still + 1 : 0;
  lastCpu = now;
  if (still >= 4) break;
}
const ended = events.find((event) => event.type === 'segment-prefetched');
reporter.row({
  bench: 'background-read',
  build,
  rows: header.rows,
  openMs: Math.round(opened),
  readMs: Math.round(ended?.at ?? performance.now() - started - 2_000),
  thread: ended?.thread ?? null,
  cpuSeconds: Math.round(cpu() * 10) / 10,
  rssMB: Math.round(process.memoryUsage().rss / 2 ** 20),
  searches: times.length,
  ...summarize(times),
});
index.close();
await store.close();
reporter.row({ bench: 'machine', ...machine() });
reporter.done();
