// The warm in-memory BM25 index alone, at scale: build it from the peer benchmark's real
// chunks (variants beyond the real ones, as in peers.mjs), then time top-k queries with
// dynamic pruning (the default) against the exhaustive term-at-a-time walk, query by query
// in turns, and check both return the same rows with the same scores.
// Usage: node --expose-gc [--max-old-space-size=16384] bench/lexical-scale.mjs [--sizes 100000,1000000]
//          [--queries 100] [--limits 50,100] [--repos DIR,DIR] [--json]
// Needs dist/ (npm run build).
import { benchQueries, realChunks, seededRandom, sizeTo } from './lib/dataset.mjs';
import { argument, createReporter, machine, rssMB, summarize } from './lib/report.mjs';
import { LexicalIndex } from '../dist/retrieve/warm/lexical-index.js';
import { lexicalFieldsOf } from '../dist/lexical/fields.js';
import { queryTerms } from '../dist/lexical/tokenize.js';
import { configSchema } from '../dist/index.js';

const reporter = createReporter();
const sizes = argument('sizes', '100000').split(',').map(Number);
const queryCount = Number(argument('queries', '100'));
const limits = argument('limits', '50,100').split(',').map(Number);
const repos = (argument('repos', '') || '').split(',').filter(Boolean);
const log = (message) => process.stderr.write(`${message}\n`);
const WARMUP = 5;

const weights = configSchema.parse({}).search.fieldWeights;
const real = await realChunks(Math.max(...sizes), repos);
log(`real chunks: ${real.length}; machine ${JSON.stringify(machine())}`);
// The dev sets' queries; without them (a clone without ../shared/eval, as in CI's smoke run),
// three words of a chunk picked at random, so pruning is still checked against the walk.
const fromDevSets = benchQueries(queryCount, 7);
const random = seededRandom(7);
const fromChunks = () =>
  Array.from({ length: queryCount }, () => {
    const words = (real[Math.floor(random() * real.length)]?.text ?? '').match(/[A-Za-z]{4,}/g) ?? [];
    return Array.from({ length: 3 }, () => words[Math.floor(random() * words.length)] ?? '').join(' ');
  });
if (fromDevSets.length === 0) log('no dev-set queries (set LOCI_EVAL_DIR): three words of random chunks instead');
const queries = (fromDevSets.length > 0 ? fromDevSets : fromChunks()).map((text) => queryTerms(text)).filter((terms) => terms.length > 0);
if (queries.length === 0) throw new Error('lexical-scale.mjs: no queries to time (no dev sets and no words in the chunks).');
let failed = false;

for (const n of sizes) {
  const { chunks, variants } = sizeTo(real, n, 11);
  const termIds = new Map();
  const index = new LexicalIndex(weights, termIds);
  const started = performance.now();
  chunks.forEach((chunk, rowId) => {
    const { termStats } = lexicalFieldsOf({ path: chunk.id, symbols: '', heading: '', body: chunk.text });
    const entries = Array.from(termStats.refs, (ref, entry) => {
      const term = termStats.table.terms[ref];
      let id = termIds.get(term);
      if (id === undefined) termIds.set(term, (id = termIds.size + 1));
      return { id, counts: termStats.counts.subarray(entry * 4, entry * 4 + 4) };
    });
    entries.sort((a, b) => a.id - b.id);
    const frequencies = new Uint16Array(entries.length * 4);
    entries.forEach(({ counts }, entry) => frequencies.set(counts, entry * 4));
    index.add(rowId + 1, { path: chunk.id, language: 'text' }, { fieldLengths: termStats.fieldLengths, termIds: Uint32Array.from(entries, (entry) => entry.id), frequencies });
  });
  const buildSeconds = (performance.now() - started) / 1000;
  globalThis.gc?.();
  log(`n=${n}: built in ${buildSeconds.toFixed(1)} s (${variants} variants), ${rssMB()} MB RSS`);
  for (const limit of limits) {
    const times = { pruned: [], exhaustive: [] };
    let mismatches = 0;
    for (let round = 0; round < WARMUP + queries.length; round++) {
      const terms = queries[round % queries.length];
      let t = performance.now();
      const pruned = index.search(terms, limit);
      const prunedMs = performance.now() - t;
      t = performance.now();
      const exhaustive = index.searchExhaustive(terms, limit);
      const exhaustiveMs = performance.now() - t;
      if (round < WARMUP) continue;
      times.pruned.push(prunedMs);
      times.exhaustive.push(exhaustiveMs);
      if (JSON.stringify(pruned) !== JSON.stringify(exhaustive)) mismatches++;
    }
    for (const [method, list] of Object.entries(times)) {
      reporter.row({ n, limit, method, queries: list.length, ...summarize(list), mismatches: method === 'pruned' ? mismatches : '' });
    }
    if (mismatches > 0) failed = true;
  }
}
reporter.done();
// Pruning must return what the exhaustive walk returns: a mismatch fails the run (and the smoke run in CI).
if (failed) {
  log('lexical-scale.mjs: dynamic pruning returned other rows or scores than the exhaustive walk (see mismatches)');
  process.exitCode = 1;
}
