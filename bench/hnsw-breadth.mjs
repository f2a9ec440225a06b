// HNSW recall against search breadth at scale: usearch with loci's graph settings (the warm
// index's defaultHnswOptions: M 24, expansion_add 128, expansion_search 160, and graphQuantization()'s type) over the peer
// benchmark's real chunks and variants, searched for k candidates (usearch explores
// max(k, expansion_search)), recall@10 against exact cosine: in the graph's own order, and
// `rescored` as loci answers (the k candidates scored by exact f32 cosine, best 10 kept).
// Chooses the breadth the warm index asks of large graphs.
// Besides recall by id, it reports recall that counts a returned chunk as right when its true
// cosine ties the 10th best (within 1e-6), and ann-benchmarks' tolerance (within 1e-3 in
// distance): near-identical variants tie, and which tied copy is returned is arbitrary.
// Usage: node --max-old-space-size=16384 bench/hnsw-breadth.mjs [--n 1000000] [--breadths 10,50,100,200,300,400,600]
//          [--connectivity 24] [--expansion-add 128] [--quantization bf16|f16|f32] [--batch 2048 --threads 1] [--repos DIR,DIR]
// `gap` is the largest difference between the graph's cosine of a candidate and its exact one
// (what GRAPH_COSINE_SLACK must cover).
import { createRequire } from 'node:module';
import { argument } from './lib/report.mjs';
import { defaultHnswOptions } from '../dist/retrieve/warm/exact-or-graph-vector-index.js';
import { graphQuantization } from '../dist/retrieve/warm/graph-quantization.js';
import { benchQueries, embedAll, exactTopK, realChunks, sizeTo, staticModel } from './lib/dataset.mjs';
const require = createRequire(import.meta.url);
const usearch = require('usearch');
const n = Number(argument('n', '1000000'));
const breadths = argument('breadths', '10,50,100,200,300,400,600').split(',').map(Number);
const repos = (argument('repos', '') || '').split(',').filter(Boolean);
const connectivity = Number(argument('connectivity', String(defaultHnswOptions.connectivity)));
const expansionAdd = Number(argument('expansion-add', String(defaultHnswOptions.expansionAdd)));
const quantization = argument('quantization', graphQuantization());
const model = await staticModel();
const d = model.dimensions;
const real = await realChunks(n, repos);
const { chunks } = sizeTo(real, n, 11);
let t = performance.now();
const vectors = await embedAll(
  model,
  chunks.map((c) => c.text),
);
const qs = benchQueries(100, 7);
const qv = await embedAll(model, qs, 'query');
const exact = exactTopK(vectors, d, qv, 10);
console.error(`data ready in ${((performance.now() - t) / 1000).toFixed(0)} s`);
for (const ef of [defaultHnswOptions.expansionSearch]) {
  const index = new usearch.Index({ metric: 'cos', dimensions: d, connectivity, expansion_add: expansionAdd, expansion_search: ef, quantization });
  t = performance.now();
  // --batch B --threads T: added B rows at a time on T threads, as the indexing run's graph
  // worker does (2,048 rows, one thread); default one call on every thread.
  const batch = Number(argument('batch', String(n)));
  const threads = Number(argument('threads', '0'));
  for (let from = 0; from < n; from += batch) {
    const to = Math.min(n, from + batch);
    index.add(
      BigUint64Array.from({ length: to - from }, (_, i) => BigInt(from + i + 1)),
      vectors.subarray(from * d, to * d),
      threads,
    );
  }
  console.error(`graph built in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  for (const k of breadths) {
    let hit = 0;
    let tied = 0;
    let tolerant = 0;
    let rescored = 0;
    let gap = 0;
    const times = [];
    for (let q = 0; q < 100; q++) {
      const v = qv.slice(q * d, (q + 1) * d);
      const s = performance.now();
      const { keys, distances } = index.search(v, k, 0);
      times.push(performance.now() - s);
      const got = new Set([...keys.slice(0, 10)].map((x) => Number(x) - 1));
      for (const id of exact[q]) if (got.has(id)) hit++;
      const cosine = (id) => {
        let dot = 0;
        for (let i = 0; i < d; i++) dot += vectors[id * d + i] * v[i];
        return dot;
      };
      const tenth = cosine(exact[q][9]);
      keys.forEach((key, at) => {
        gap = Math.max(gap, Math.abs(1 - distances[at] - cosine(Number(key) - 1)));
      });
      const best = [...keys]
        .map((x) => Number(x) - 1)
        .sort((a, b) => cosine(b) - cosine(a))
        .slice(0, 10);
      for (const id of best) if (exact[q].includes(id)) rescored++;
      for (const id of got) {
        const c = cosine(id);
        if (c >= tenth - 1e-6) tied++;
        if (c >= tenth - 1e-3) tolerant++;
      }
    }
    times.sort((a, b) => a - b);
    console.log(
      `n=${n} M=${connectivity} efAdd=${expansionAdd} ${quantization} breadth=${k} recall@10=${(hit / 1000).toFixed(3)} rescored=${(rescored / 1000).toFixed(3)} ties=${(Math.min(tied, 1000) / 1000).toFixed(3)} eps1e-3=${(Math.min(tolerant, 1000) / 1000).toFixed(3)} p50=${times[50].toFixed(2)}ms p95=${times[95].toFixed(2)}ms gap=${gap.toExponential(2)}`,
    );
  }
}
