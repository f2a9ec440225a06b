// A new process's first search on an existing store (loads the warm index and the vector
// graph, or builds the graph), then close (which saves a graph built or changed here).
// Run it twice: the second run shows what every later process pays.
// Usage: node bench/first-search.mjs --store DIR [--build DIR] [--query TEXT] [--json]
//   DIR: the root passed to createLoci when the store was made (its store in DIR/loci-store,
//   as bench/compare-builds.mjs makes it); --build: another loci checkout to run instead.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { argument, createReporter } from './lib/report.mjs';

const reporter = createReporter();
const root = argument('store');
if (!root) throw new Error('Pass --store DIR (a store made by bench/compare-builds.mjs, for one).');
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const { createLoci } = await import(pathToFileURL(join(build, 'dist', 'index.js')).href);
const loci = createLoci({ root, store: join(root, 'loci-store') });
let started = performance.now();
await loci.search(argument('query', 'parse a json file'), { topK: 10 });
const firstSearchMs = Math.round(performance.now() - started);
started = performance.now();
await loci.close();
reporter.row({ build, store: root, firstSearchMs, closeMs: Math.round(performance.now() - started) });
reporter.done();
