// Does indexing get in the way of searching? Indexes a repository from scratch in-process
// (as `loci serve` does after POST /v1/index) while a search runs every 20 ms, and records
// search latency and the event loop's worst stall during the run.
// Usage: node bench/search-during-index.mjs --repo DIR [--single-phase] [--inline] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createLoci } from '../dist/index.js';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const repo = argument('repo');
if (!repo) throw new Error('Pass --repo DIR.');
const work = mkdtempSync(join(tmpdir(), 'loci-bench-concurrent-'));
const loci = createLoci({ root: repo, store: join(work, 'store') });
const queries = ['reactive effect dependency tracking', 'normalize props', 'compile template', 'scheduler queue job', 'createApp mount'];
try {
  await loci.index({ progressive: 'never' }).catch(() => undefined); // nothing yet: creates the store
  rmSync(join(work, 'store'), { recursive: true, force: true });
  const inline = process.argv.includes('--inline');
  const fresh = createLoci({ root: repo, store: join(work, 'store'), config: { indexing: { worker: !inline } } });
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const latencies = [];
  let indexing = true;
  const run = fresh.index({ progressive: process.argv.includes('--single-phase') ? 'never' : 'always' }).finally(() => (indexing = false));
  histogram.enable();
  let round = 0;
  let firstResultMs;
  const runStarted = performance.now();
  while (indexing) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    try {
      const response = await fresh.search(queries[round++ % queries.length], { topK: 10 });
      if (firstResultMs === undefined && response.results.length > 0) firstResultMs = Math.round(performance.now() - runStarted);
    } catch {
      // the store may not exist for the first few milliseconds
    }
    latencies.push(performance.now() - started);
    if (process.env.BENCH_TRACE) console.error(round, (performance.now() - started).toFixed(1));
  }
  histogram.disable();
  const summary = await run;
  reporter.row({
    bench: 'search-during-index',
    repo,
    mode: inline ? 'in-process' : 'worker',
    firstResultMs,
    files: summary.files.total,
    indexSeconds: summary.seconds,
    searches: latencies.length,
    ...summarize(latencies),
    maxMs: Math.round(Math.max(...latencies)),
    loopStallMaxMs: Math.round(histogram.max / 1e6),
    loopStallP99Ms: Math.round(histogram.percentile(99) / 1e6),
  });
  reporter.row({ bench: 'machine', ...machine() });
  await fresh.close();
} finally {
  await loci.close();
  rmSync(work, { recursive: true, force: true });
}
reporter.done();
