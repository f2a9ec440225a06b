// Two builds of loci, one store, taking turns: search latency of build A against build B on
// the same index, round after round, so this VM's drift (up to 2× between runs) falls on both.
// The store is built once from the peer bench's real chunks (kept at --store for later runs).
// Usage: node bench/compare-builds.mjs --a DIR --b DIR [--n 100000] [--store /tmp/loci-compare-100000] [--store-b COPY]
//          [--ops hybrid,ranked] [--queries 100] [--repeat 5] [--rounds 3] [--settle SECONDS] [--repos DIR,DIR] [--json]
// DIR is a loci checkout with a build (its dist/), e.g. a `git worktree` of the older commit.
// --store-b: B searches its own copy of the store (when A's build migrates the store's schema,
// an older B refuses it); make it with `cp -r` before A first opens the store.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchQueries, realChunks, sizeTo } from './lib/dataset.mjs';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const builds = { A: argument('a'), B: argument('b') };
if (!builds.A || !builds.B) throw new Error('Pass --a DIR and --b DIR: two loci checkouts, each built (npm run build).');
const n = Number(argument('n', '100000'));
const storeDir = argument('store', `/tmp/loci-compare-${n}`);
const ops = argument('ops', 'hybrid,ranked').split(',');
const queries = benchQueries(Number(argument('queries', '100')), 7);
const repeat = Number(argument('repeat', '5'));
const rounds = Number(argument('rounds', '3'));
const repos = (argument('repos', '') || '').split(',').filter(Boolean);
const log = (message) => process.stderr.write(`${message}\n`);

const engines = {};
for (const [name, dir] of Object.entries(builds)) {
  const entry = join(resolve(dir), 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`${dir} has no dist/index.js; run npm run build there.`);
  const { createLoci } = await import(pathToFileURL(entry).href);
  const searched = name === 'B' ? argument('store-b', storeDir) : storeDir;
  engines[name] = createLoci({ root: searched, store: join(searched, 'loci-store') });
}
if (!existsSync(join(storeDir, 'loci-store', 'index.db'))) {
  const { chunks } = sizeTo(await realChunks(n, repos), n, 11);
  const started = performance.now();
  await engines.A.indexDocuments(chunks.map((chunk) => ({ id: chunk.id, text: chunk.text })));
  log(`store of ${n} chunks built by A in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
const options = (op) => ({ mode: op === 'ranked' ? 'hybrid' : op, topK: 10, ranker: op === 'ranked' });
for (const engine of Object.values(engines)) for (const op of ops) await engine.search(queries[0], options(op)); // warm: loads the index
// --settle S: wait S seconds before timing, so a long-lived engine's background reads (the
// segment's postings, then its vector matrix) finish first, as between a server's requests.
const settle = Number(argument('settle', '0'));
if (settle > 0) await new Promise((resolve) => setTimeout(resolve, settle * 1000));

for (let round = 1; round <= rounds; round++) {
  for (const [name, engine] of Object.entries(engines)) {
    for (const op of ops) {
      const times = [];
      for (let pass = 0; pass < repeat; pass++) {
        for (const query of queries) {
          const started = performance.now();
          await engine.search(query, options(op));
          times.push(performance.now() - started);
        }
      }
      reporter.row({ build: name, dir: builds[name], round, op, n, ...summarize(times) });
    }
  }
}
for (const engine of Object.values(engines)) await engine.close();
reporter.row({ bench: 'machine', ...machine() });
reporter.done();
