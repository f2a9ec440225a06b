// Search latency of one build as a library caller sees it in a loop of awaited searches with
// nothing else to do (an eval, a batch job): one search, an idle wait (the engine's background
// reads finish), then rounds of the bench queries back to back. Unlike compare-builds.mjs (two
// engines in one process, each letting the other's events through), one build per process.
// Usage: node bench/search-loop.mjs --store DIR [--build DIR] [--mode hybrid|ranked|lexical|vector] [--queries 200] [--rounds 3] [--settle 12] [--json]
//   --store: a folder holding loci-store/ (bench/build-memory.mjs --n 100000 --keep DIR makes one)
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchQueries } from './lib/dataset.mjs';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const store = argument('store');
if (!store) throw new Error('Pass --store DIR: a folder holding loci-store/ (bench/build-memory.mjs --n 100000 --keep DIR makes one).');
const mode = argument('mode', 'hybrid');
const rounds = Number(argument('rounds', '3'));
const settle = Number(argument('settle', '12'));
const queries = benchQueries(Number(argument('queries', '200')), 7);
const { createLoci } = await import(pathToFileURL(join(build, 'dist', 'index.js')).href);
const loci = createLoci({ root: store, store: join(store, 'loci-store') });
const options = mode === 'ranked' ? { mode: 'hybrid', topK: 10, ranker: true } : { mode, topK: 10, ranker: false };
await loci.search(queries[0], options); // loads the index
await new Promise((done) => setTimeout(done, settle * 1000));
for (let round = 1; round <= rounds; round++) {
  const times = [];
  for (const query of queries) {
    const started = performance.now();
    await loci.search(query, options);
    times.push(performance.now() - started);
  }
  reporter.row({ build, mode, round, ...summarize(times) });
}
await loci.close();
reporter.row({ bench: 'machine', ...machine() });
reporter.done();
