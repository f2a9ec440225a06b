// A long-lived engine on a big store taking small runs, as `loci serve` with a watcher does:
// the time of each run, how often the vector graph file was rewritten, then hybrid search
// latency and RSS. Each run works on a fresh copy of the store, so the original is unchanged.
// Usage: node --expose-gc bench/small-runs.mjs --store DIR [--build CHECKOUT] [--rounds 30] [--per 200] [--fresh] [--json]
//   --fresh: each run on a new engine, closed after it, as each `loci index` is a new process
//   (its index is read from the segment file, not kept from the run before).
//   DIR holds `loci-store/`, e.g. kept by `node --expose-gc --max-old-space-size=16384 bench/build-memory.mjs --n 100000 --keep DIR`.
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const source = argument('store');
if (!source) throw new Error('Pass --store DIR (a folder holding loci-store/, see the usage line).');
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const rounds = Number(argument('rounds', '30'));
const per = Number(argument('per', '200'));
const fresh = process.argv.includes('--fresh');
const { createLoci } = await import(pathToFileURL(join(build, 'dist', 'index.js')).href);

const root = mkdtempSync(join(tmpdir(), 'loci-small-runs-'));
cpSync(join(source, 'loci-store'), join(root, 'loci-store'), { recursive: true });
const storeDir = join(root, 'loci-store');
/** Modification times of the files with this ending (the vector graph's, the segment's). */
const fileTimes = (ending) =>
  readdirSync(storeDir)
    .filter((name) => name.endsWith(ending))
    .map((name) => `${name}:${statSync(join(storeDir, name)).mtimeMs}`)
    .join(',');
const words = ['scheduler', 'flush', 'queue', 'render', 'parser', 'socket', 'cache', 'token', 'schema', 'effect', 'reactive', 'mount', 'patch', 'compile'];
const text = (index) => Array.from({ length: 60 }, (_, k) => words[(index * 7 + k * 3) % words.length] + (k % 5 === 0 ? String(index % 97) : '')).join(' ');
const loci = createLoci({ root, store: storeDir });
try {
  // Two searches first: the graph is mapped, and a second one starts the graph search thread.
  await loci.search('how does the scheduler flush jobs', { mode: 'hybrid' });
  await loci.search('render a component tree', { mode: 'hybrid' });
  let rewrites = 0;
  let segmentRewrites = 0;
  const runs = [];
  for (let round = 0; round < rounds; round++) {
    const [graphBefore, segmentBefore] = [fileTimes('.hnsw'), fileTimes('.seg')];
    const documents = Array.from({ length: per }, (_, k) => ({ id: `small/r${round}-${k}.md`, text: `# note ${round} ${k}\n\n${text(round * per + k)}` }));
    const started = performance.now();
    if (fresh) {
      const run = createLoci({ root, store: storeDir });
      await run.indexDocuments(documents);
      await run.close();
    } else await loci.indexDocuments(documents);
    runs.push(performance.now() - started);
    await loci.search(`${words[round % words.length]} ${words[(round + 3) % words.length]}`, { mode: 'hybrid' });
    if (fileTimes('.hnsw') !== graphBefore) rewrites++;
    if (fileTimes('.seg') !== segmentBefore) segmentRewrites++;
  }
  const latencies = [];
  for (let pass = 0; pass < 8; pass++) {
    for (const [index, word] of words.entries()) {
      const started = performance.now();
      await loci.search(`${word} handling for ${words[(index + 5) % words.length]}`, { mode: 'hybrid' });
      if (pass > 0) latencies.push(performance.now() - started); // the first pass warms up
    }
  }
  globalThis.gc?.();
  const sortedRuns = [...runs].sort((a, b) => a - b);
  reporter.row({
    build,
    rounds,
    per,
    fresh,
    runMsMedian: Math.round(sortedRuns[sortedRuns.length >> 1]),
    runSecondsTotal: Math.round(runs.reduce((sum, ms) => sum + ms, 0)) / 1000,
    graphRewrites: rewrites,
    segmentRewrites,
    hybridP50Ms: summarize(latencies).p50Ms,
    rssMB: Math.round(process.memoryUsage().rss / 2 ** 20),
  });
  reporter.row({ machine: JSON.stringify(machine()) });
} finally {
  await loci.close();
  rmSync(root, { recursive: true, force: true });
  reporter.done();
}
