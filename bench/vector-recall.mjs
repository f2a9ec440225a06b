// Recall@10 of loci's own vector search (mode vector, top 10) against an exact cosine scan of
// the vectors the store holds, by result path (and counting ties with the 10th best as right),
// on the peer bench's real chunks: what the HNSW graph an indexing run leaves behind (built by its graph worker) gives a user. Builds the store
// with `indexDocuments` when it does not exist and reports how long that took.
// Usage: node --expose-gc bench/vector-recall.mjs [--store /tmp/loci-vector-recall-100000] [--n 100000] [--build DIR] [--json]
//   DIR: a loci checkout with a build (default: this one). Delete the store to rebuild it.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchQueries, realChunks, sizeTo } from './lib/dataset.mjs';
import { argument, createReporter, machine } from './lib/report.mjs';
import { storedVectorTruth } from './lib/stored-vectors.mjs';

const reporter = createReporter();
const n = Number(argument('n', '100000'));
const dir = argument('store', `/tmp/loci-vector-recall-${n}`);
const build = resolve(argument('build', '.'));
const { createLoci } = await import(pathToFileURL(join(build, 'dist', 'index.js')).href);
const store = join(dir, 'loci-store');
const loci = createLoci({ root: dir, store });
let buildSeconds;
if (!existsSync(join(store, 'index.db'))) {
  const { chunks } = sizeTo(await realChunks(n, []), n, 11);
  const started = performance.now();
  await loci.indexDocuments(chunks.map((chunk) => ({ id: chunk.id, text: chunk.text })));
  buildSeconds = (performance.now() - started) / 1000;
}
const queries = benchQueries(100, 7);
await loci.search(queries[0], { mode: 'hybrid', topK: 10 }); // loads the index and its graph

const { tops, cosine } = await storedVectorTruth(store, await loci.embedder(), queries, 10);
const truth = tops.map((paths) => new Set(paths));
let hits = 0;
// Also counted right: a returned chunk whose true cosine ties the 10th best within 1e-6 (at 1M,
// variants that differ only in blank or stop-word lines have the very same vector).
let tied = 0;
for (const [index, query] of queries.entries()) {
  const results = (await loci.search(query, { mode: 'vector', topK: 10 })).results;
  hits += results.filter((result) => truth[index].has(result.path)).length;
  const tenth = cosine(index, tops[index][9]);
  tied += Math.min(10, results.filter((result) => truth[index].has(result.path) || cosine(index, result.path) >= tenth - 1e-6).length);
}
await loci.close();
reporter.row({
  bench: 'vector-recall',
  build,
  n,
  ...(buildSeconds !== undefined ? { buildSeconds: Number(buildSeconds.toFixed(1)) } : {}),
  recall10: hits / (queries.length * 10),
  recall10Ties: tied / (queries.length * 10),
});
reporter.row({ bench: 'machine', ...machine() });
reporter.done();
