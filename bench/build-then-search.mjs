// Build time of a new documents store and its first search, in one process: what indexing
// then searching costs together (a change that moves work from the first search into the
// build shows here as a wash, not as a win or a loss). Run two builds alternating to compare.
// Usage: node bench/build-then-search.mjs [--build DIR] [--n 10000] [--json]
//   DIR: a loci checkout with a build (default: this one); the peer bench's real chunks.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { realChunks, sizeTo } from './lib/dataset.mjs';
import { argument, createReporter } from './lib/report.mjs';

const reporter = createReporter();
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const n = Number(argument('n', '10000'));
const { createLoci } = await import(pathToFileURL(join(build, 'dist', 'index.js')).href);
const { chunks } = sizeTo(await realChunks(n, []), n, 11);
const dir = mkdtempSync(join(tmpdir(), 'loci-build-search-'));
try {
  const loci = createLoci({ root: dir, store: join(dir, 'loci-store') });
  const started = performance.now();
  await loci.indexDocuments(chunks.map((chunk) => ({ id: chunk.id, text: chunk.text })));
  const indexMs = Math.round(performance.now() - started);
  const indexDbMb = Math.round(statSync(join(dir, 'loci-store', 'index.db')).size / 2 ** 20);
  await loci.search('parse a json file', { topK: 10 });
  const totalMs = Math.round(performance.now() - started);
  await loci.close();
  // Peak RSS of the whole process (every thread), in MB.
  reporter.row({ build, n, indexMs, indexAndFirstSearchMs: totalMs, chunksPerSecond: Math.round(n / (indexMs / 1000)), peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), indexDbMb });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
reporter.done();
