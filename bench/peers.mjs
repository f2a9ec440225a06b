// loci against peer engines, side by side, on the same real data in one process:
// indexing throughput and RSS, then lexical / vector / hybrid query latency with the engines
// taking turns query by query (so machine noise falls on all of them alike), and ANN
// recall@10 against exact cosine search over the same engine's vectors: by id (recall10), and
// counting a returned chunk right when its true cosine ties the 10th best within 1e-6
// (recall10Ties). At 1M, variants that differ only in blank or stop-word lines have the very
// same vector: ~1 in 6 true top-10 rows has an exact twin, and which copy an engine returns is
// arbitrary (an engine breaking ties at random tops out near 0.985 by id).
// Usage: node --expose-gc [--max-old-space-size=16384 for 1M] bench/peers.mjs [--sizes 10000,100000] [--queries 200]
//          [--engines loci,orama,lancedb,sqlite,minisearch,usearch] [--repos DIR,DIR] [--rounds 1] [--json]
// --rounds R: the queries are run R times over (every engine alike, taking turns as in one round);
// the lexical / vector / hybrid / ranked rows are the last round's (a process that has served a
// while: posting lists and graph pages already read), and with R > 1 the first round's are kept
// beside them as `lexical@1` … (what the first queries after the build met). Default 1.
// Peers come from bench/package.json (`npm install --prefix bench --no-package-lock`, done by npm run bench); loci from dist/ (npm run build).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchQueries, cosineOf, embedAll, exactTopK, realChunks, sizeTo, staticModel } from './lib/dataset.mjs';
import { EVAL_DIR } from './lib/eval-dir.mjs';
import { lanceEngine, lociEngine, miniSearchEngine, oramaEngine, sqliteEngine, usearchEngine } from './lib/peer-engines.mjs';
import { startLauncher } from './lib/launcher.mjs';
import { reopen } from './lib/reopen.mjs';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
// Started before the data loads: first-search children are spawned from it (see launcher.mjs).
const launcher = startLauncher();
const sizes = argument('sizes', '10000').split(',').map(Number);
const queryCount = Number(argument('queries', '200'));
const wanted = argument('engines', 'loci,orama,lancedb,sqlite,minisearch,usearch').split(',');
const repos = (argument('repos', '') || '').split(',').filter(Boolean);
/** Engines that hold everything in the JS heap are skipped above this size (RSS beyond this machine's comfort). */
const inHeapLimit = Number(argument('in-heap-limit', '200000'));
const factories = { loci: lociEngine, orama: oramaEngine, lancedb: lanceEngine, sqlite: sqliteEngine, minisearch: miniSearchEngine, usearch: usearchEngine };
const IN_HEAP = new Set(['orama', 'minisearch']);
// `ranked`: loci's default hybrid with its learned ranker (peers have none; no ratio is printed).
const OPS = ['lexical', 'vector', 'hybrid', 'ranked'];
/** New processes per engine for the first-search row (median reported). */
const FIRST_SEARCH_RUNS = Number(argument('first-search-runs', '3'));
const ROUNDS = Number(argument('rounds', '1'));
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 20) throw new Error(`--rounds takes a whole number from 1 to 20 (got ${argument('rounds', '1')}).`);
const child = new URL('./lib/first-search-child.mjs', import.meta.url).pathname;

/**
 * The first search of a new process on what the build left on disk (Node's start-up
 * included: the time a one-shot command or a restarted service waits), median of a few
 * processes. Engines that keep nothing on disk get no row: each process rebuilds them.
 */
async function firstSearchRow(engine, n, dir, query) {
  if (!reopen[engine.name] || FIRST_SEARCH_RUNS <= 0) return undefined;
  const queryFile = join(dir, 'first-query.json');
  writeFileSync(queryFile, JSON.stringify({ text: query.text, vector: Array.from(query.vector), dimensions }));
  const times = [];
  for (let run = 0; run < FIRST_SEARCH_RUNS; run++) {
    const result = await launcher.run(child, [engine.name, dir, queryFile]);
    const wallMs = result.wallMs;
    if (result.status !== 0) {
      log(`${engine.name}: first search in a new process failed: ${result.stderr.split('\n')[0]}`);
      return undefined;
    }
    const { hits } = JSON.parse(result.stdout.trim().split('\n').at(-1));
    if (hits === 0) log(`${engine.name}: first search in a new process found nothing`);
    times.push(wallMs);
  }
  times.sort((a, b) => a - b);
  return { engine: engine.name, op: 'first-search', n, p50Ms: Math.round(times[Math.floor(times.length / 2)]), p95Ms: null, p99Ms: null, recall10: null, runs: times.length };
}
const WARMUP = 5;
const log = (message) => process.stderr.write(`${message}\n`);
const rss = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};

// Checked before anything is built: without the dev sets there are no queries (and fewer real
// chunks), and a 1M build would end in a crash at its first search.
const queryTexts = benchQueries(queryCount, 7);
if (queryTexts.length === 0) {
  log(`peers.mjs: no queries: ${EVAL_DIR} holds no cosqa/ and scifact/ queries.jsonl. Set LOCI_EVAL_DIR to the folder of dev sets (../shared/eval next to the repository).`);
  process.exit(2);
}
const model = await staticModel();
const dimensions = model.dimensions;
const real = await realChunks(Math.max(...sizes), repos);
log(`real chunks: ${real.length}`);
const queryVectors = await embedAll(model, queryTexts, 'query');
const queries = queryTexts.map((text, index) => ({ text, vector: queryVectors.slice(index * dimensions, (index + 1) * dimensions) }));
const ratios = [];

for (const n of sizes) {
  const { chunks, variants } = sizeTo(real, n, 11);
  const vectors = await embedAll(
    model,
    chunks.map((chunk) => chunk.text),
  );
  const exact = exactTopK(vectors, dimensions, queryVectors, 10);
  log(`n=${n}: ${variants} variant chunks; ground truth ready`);
  const dir = mkdtempSync(join(tmpdir(), 'loci-bench-peers-'));
  const data = { chunks, vectors, dimensions, dir };
  const engines = [];
  for (const name of wanted) {
    if (!factories[name]) throw new Error(`Unknown engine ${name}; pick from ${Object.keys(factories).join(', ')}.`);
    if (IN_HEAP.has(name) && n > inHeapLimit) {
      log(`${name}: skipped at n=${n} (holds everything in the JS heap; raise --in-heap-limit to try)`);
      continue;
    }
    let engine;
    try {
      engine = await factories[name]();
    } catch (error) {
      log(`${name}: not installed (${error.message.split('\n')[0]}); run npm install --prefix bench --no-package-lock`);
      continue;
    }
    const before = rss();
    const started = performance.now();
    await engine.build(data, { ann: n >= 50_000 });
    let seconds = (performance.now() - started) / 1000;
    if (engine.warm) {
      const warmStarted = performance.now();
      await engine.warm(queries[0]);
      seconds += (performance.now() - warmStarted) / 1000;
    }
    const rssMB = Math.round(rss() - before);
    reporter.row({
      engine: engine.name,
      op: 'index',
      n,
      p50Ms: null,
      p95Ms: null,
      p99Ms: null,
      recall10: null,
      seconds: Math.round(seconds * 100) / 100,
      chunksPerSec: Math.round(n / seconds),
      rssMB,
    });
    log(`${engine.name}: built in ${seconds.toFixed(1)} s`);
    engines.push(engine);
  }
  // After every build (each engine's files complete on disk), before the query rounds.
  for (const engine of engines) {
    const row = await firstSearchRow(engine, n, dir, queries[WARMUP]);
    if (row) reporter.row(row);
  }
  const truths = new Map();
  for (const engine of engines) if (engine.groundTruth) truths.set(engine, await engine.groundTruth(queries));
  const latencies = new Map(engines.map((engine) => [engine, Object.fromEntries(OPS.map((op) => [op, []]))]));
  const recalls = new Map(engines.map((engine) => [engine, []]));
  const tiedRecalls = new Map(engines.map((engine) => [engine, []]));
  // The bench's own ground truth: its vectors, by exact cosine.
  const benchTruth = {
    tops: exact,
    cosine: (queryIndex, row) => cosineOf(vectors, dimensions, row, queryVectors, queryIndex),
  };
  for (let round = 1; round <= ROUNDS; round++) {
    const last = round === ROUNDS;
    // Each round starts afresh; the first one's times are kept as `op@1`.
    for (const engine of engines) {
      const times = latencies.get(engine);
      for (const op of OPS) {
        if (round === 2) times[`${op}@1`] = times[op].splice(0);
        else if (round > 2) times[op].length = 0;
      }
    }
    for (const [index, query] of queries.entries()) {
      for (let turn = 0; turn < engines.length; turn++) {
        const engine = engines[(index + turn) % engines.length];
        for (const op of OPS) {
          if (!engine[op]) continue;
          const started = performance.now();
          const rows = await engine[op](query);
          const elapsed = performance.now() - started;
          if (index < WARMUP) continue;
          latencies.get(engine)[op].push(elapsed);
          if (op === 'vector' && last) {
            const { tops, cosine } = truths.get(engine) ?? benchTruth;
            const truth = new Set(tops[index]);
            // Distinct ids: an engine returning one chunk twice must not count it twice.
            const distinct = [...new Set(rows)];
            recalls.get(engine).push(distinct.filter((row) => truth.has(row)).length / truth.size);
            const tenth = cosine(index, tops[index][truth.size - 1]);
            tiedRecalls.get(engine).push(Math.min(truth.size, distinct.filter((row) => truth.has(row) || cosine(index, row) >= tenth - 1e-6).length) / truth.size);
          }
        }
      }
    }
  }
  // Each query above runs lexical, vector, hybrid, then ranked on one engine: ranked walks the
  // graph for the query hybrid just walked (the second thread's caches warm). `ranked-alone`
  // times the default search once more per query, in reverse order, with no other op between.
  for (const engine of engines) {
    if (!engine.ranked) continue;
    const times = [];
    for (const query of queries.slice(WARMUP).reverse()) {
      const started = performance.now();
      await engine.ranked(query);
      times.push(performance.now() - started);
    }
    latencies.get(engine)['ranked-alone'] = times;
  }
  for (const engine of engines) {
    for (const op of [...OPS, 'ranked-alone', ...(ROUNDS > 1 ? OPS.map((name) => `${name}@1`) : [])]) {
      const times = latencies.get(engine)[op] ?? [];
      if (times.length === 0) continue;
      const mean = (values) => Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 1000) / 1000;
      const recall = op === 'vector' ? recalls.get(engine) : [];
      const tied = op === 'vector' ? tiedRecalls.get(engine) : [];
      reporter.row({ engine: engine.name, op, n, ...summarize(times), ...(recall.length ? { recall10: mean(recall) } : {}), ...(tied.length ? { recall10Ties: mean(tied) } : {}) });
    }
    if (engine.exact) {
      const times = [];
      for (const query of queries.slice(WARMUP)) {
        const started = performance.now();
        await engine.exact(query);
        times.push(performance.now() - started);
      }
      reporter.row({ engine: `${engine.name}-exact`, op: 'vector', n, ...summarize(times), recall10: 1 });
    }
    await engine.close();
  }
  for (const op of OPS) {
    const loci = latencies.get(engines.find((engine) => engine.name === 'loci'))?.[op];
    if (!loci?.length) continue;
    const peers = engines.filter((engine) => engine.name !== 'loci' && latencies.get(engine)[op].length > 0).map((engine) => ({ name: engine.name, p50: summarize(latencies.get(engine)[op]).p50Ms }));
    peers.sort((a, b) => a.p50 - b.p50);
    if (peers[0])
      ratios.push({ n, op, lociP50Ms: summarize(loci).p50Ms, fastestPeer: peers[0].name, peerP50Ms: peers[0].p50, speedup: Math.round((peers[0].p50 / summarize(loci).p50Ms) * 100) / 100 });
  }
  rmSync(dir, { recursive: true, force: true });
}
reporter.done();
launcher.stop();
if (!process.argv.includes('--json')) {
  console.log('\nloci against the fastest peer doing the same work (speedup > 1: loci is faster)');
  const table = createReporter([]);
  for (const ratio of ratios) table.row(ratio);
  table.done();
  const about = createReporter([]);
  about.row({ bench: 'machine', ...machine(), realChunks: real.length, queries: queries.length });
  about.done();
}
