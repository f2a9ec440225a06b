// Memory of a documents build: one indexDocuments call over the peer bench's real chunks (1M by
// default), RSS sampled every 5 s (the event loop's stalls show as gaps), the peak and a timeline.
// Usage: node --expose-gc --max-old-space-size=16384 bench/build-memory.mjs [--build DIR] [--n 1000000] [--keep DIR] [--json]
//   baseRssMb: the process holding the documents before the build; maxRssAllThreadsMb: every thread's peak;
//   settledRssMb: after one search, a collection and a second's quiet; keptRssMb: settled less base.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { realChunks, sizeTo } from './lib/dataset.mjs';
import { argument, createReporter } from './lib/report.mjs';

const reporter = createReporter();
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const n = Number(argument('n', '1000000'));
const keep = argument('keep', '');
const { createLoci } = await import(pathToFileURL(join(build, 'dist', 'index.js')).href);
const { chunks } = sizeTo(await realChunks(n, []), n, 11);
const documents = chunks.map((chunk) => ({ id: chunk.id, text: chunk.text }));
chunks.length = 0;
globalThis.gc?.();
const mb = (bytes) => Math.round(bytes / 2 ** 20);
const baseRssMb = mb(process.memoryUsage().rss);
const dir = keep || mkdtempSync(join(tmpdir(), 'loci-build-memory-'));
let peak = 0;
const timeline = [];
const started = performance.now();
const seconds = () => Math.round((performance.now() - started) / 1000);
const sample = () => {
  const rss = process.memoryUsage().rss;
  peak = Math.max(peak, rss);
  timeline.push(`${seconds()}s:${mb(rss)}`);
};
const timer = setInterval(sample, 5000);
let indexFinishedS = 0;
try {
  const loci = createLoci({ root: dir, store: join(dir, 'loci-store') });
  await loci.indexDocuments(documents, {
    onProgress: (event) => {
      if (event.type === 'index-finished') indexFinishedS = seconds();
    },
  });
  const buildS = seconds();
  sample();
  clearInterval(timer);
  globalThis.gc?.();
  const afterRssMb = mb(process.memoryUsage().rss);
  // What a long-lived process keeps once settled: a search answered, a collection, a second's
  // quiet (memory handed back after a collection is gone by then).
  await loci.search('parse configuration file', { topK: 5 });
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const settledRssMb = mb(process.memoryUsage().rss);
  reporter.row({
    build,
    n,
    buildS,
    indexFinishedS,
    peakSampledRssMb: mb(peak),
    afterRssMb,
    settledRssMb,
    keptRssMb: settledRssMb - baseRssMb,
    baseRssMb,
    maxRssAllThreadsMb: Math.round(process.resourceUsage().maxRSS / 1024),
  });
  await loci.close();
  process.stderr.write(`RSS MB over time: ${timeline.join(' ')}\n`);
} finally {
  clearInterval(timer);
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
reporter.done();
