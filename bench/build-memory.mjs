// Memory of a documents build: one indexDocuments call over the peer bench's real chunks (1M by
// default), RSS sampled every 5 s (the event loop's stalls show as gaps), the peak and a timeline.
// Usage: node --expose-gc --max-old-space-size=16384 bench/build-memory.mjs [--build DIR] [--n 1000000] [--keep DIR] [--stream] [--json]
//   baseRssMb: the process holding the documents before the build; maxRssAllThreadsMb: every thread's peak;
//   settledRssMb: after one search, a collection and a second's quiet; keptRssMb: settled less base;
//   peakWatched: the highest RSS a sampler process saw every 100 ms during the build, with its anonymous and file-backed parts.
//   --stream: the documents are written to a JSONL file by a child process (kept in the temp folder
//   for the next run) and read line by line as an async iterable, as a caller with a file would:
//   the measuring process never holds them all.
import { spawnSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { realChunks, sizeTo } from './lib/dataset.mjs';
import { argument, createReporter } from './lib/report.mjs';

const n = Number(argument('n', '1000000'));
const watchPid = argument('watch-pid', '');
if (watchPid) {
  // The sampler's one job: the measured process's RSS every 100 ms from outside it (its own
  // timer stalls while a synchronous save runs), split into anonymous and file-backed pages,
  // and at its highest; printed as JSON when the sampler is told to stop.
  const { readFileSync } = await import('node:fs');
  const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) / 1024;
  let highest = { rssMb: 0 };
  const perSecond = [];
  const started = performance.now();
  const timer = setInterval(() => {
    let text;
    try {
      text = readFileSync(`/proc/${watchPid}/status`, 'utf8');
    } catch {
      return;
    }
    const rssMb = field(text, 'VmRSS');
    const second = Math.floor((performance.now() - started) / 1000);
    perSecond[second] = Math.max(perSecond[second] ?? 0, Math.round(rssMb));
    if (rssMb > highest.rssMb)
      highest = {
        rssMb: Math.round(rssMb),
        anonMb: Math.round(field(text, 'RssAnon')),
        fileMb: Math.round(field(text, 'RssFile')),
        shmemMb: Math.round(field(text, 'RssShmem')),
        atS: Math.round((performance.now() - started) / 100) / 10,
      };
  }, 100);
  process.on('SIGTERM', () => {
    clearInterval(timer);
    // Each second's highest, for where the peak falls against the build's events.
    process.stderr.write(
      `RSS MB, highest each second from outside: ${perSecond
        .map((mb, at) => (mb === undefined ? '' : `${at}s:${mb}`))
        .filter(Boolean)
        .join(' ')}\n`,
    );
    process.stdout.write(`${JSON.stringify(highest)}\n`, () => process.exit(0));
  });
  await new Promise(() => {});
}
const jsonlOut = argument('jsonl-out', '');
if (jsonlOut) {
  // The child's one job: the documents as JSONL, written through a rename.
  const { chunks } = sizeTo(await realChunks(n, []), n, 11);
  // A line at a time, in blocks: the whole file as one string is past V8's string length at 1M.
  const fd = openSync(`${jsonlOut}.tmp`, 'w');
  for (let at = 0; at < chunks.length; at += 10_000) {
    writeSync(
      fd,
      `${chunks
        .slice(at, at + 10_000)
        .map((chunk) => JSON.stringify({ id: chunk.id, text: chunk.text }))
        .join('\n')}\n`,
    );
  }
  closeSync(fd);
  renameSync(`${jsonlOut}.tmp`, jsonlOut);
  process.exit(0);
}
const reporter = createReporter();
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const keep = argument('keep', '');
const stream = process.argv.includes('--stream');
const { createLoci } = await import(pathToFileURL(join(build, 'dist', 'index.js')).href);
let documents;
if (stream) {
  const file = join(tmpdir(), `loci-bench-documents-${n}.jsonl`);
  if (!existsSync(file)) {
    const made = spawnSync(process.execPath, ['--max-old-space-size=16384', fileURLToPath(import.meta.url), '--n', String(n), '--jsonl-out', file], { stdio: 'inherit' });
    if (made.status !== 0) throw new Error(`Writing ${file} failed (exit ${made.status}).`);
  }
  documents = (async function* () {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) if (line) yield JSON.parse(line);
  })();
} else {
  const { chunks } = sizeTo(await realChunks(n, []), n, 11);
  documents = chunks.map((chunk) => ({ id: chunk.id, text: chunk.text }));
  chunks.length = 0;
}
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
// Sampled from outside as well: the peak a synchronous save reaches between the timer's ticks.
const { spawn } = await import('node:child_process');
const watcher = spawn(process.execPath, [fileURLToPath(import.meta.url), '--watch-pid', String(process.pid)], { stdio: ['ignore', 'pipe', 'inherit'] });
let watched = '';
watcher.stdout.on('data', (data) => {
  watched += data;
});
const watchedPeak = () =>
  new Promise((done) => {
    watcher.once('exit', () => done(watched.trim() ? JSON.parse(watched) : undefined));
    watcher.kill('SIGTERM');
  });
let indexFinishedS = 0;
try {
  const loci = createLoci({ root: dir, store: join(dir, 'loci-store') });
  await loci.indexDocuments(documents, {
    onProgress: (event) => {
      if (event.type === 'index-finished') indexFinishedS = seconds();
      if (event.type === 'save-started' || event.type === 'phase-finished' || event.type === 'index-finished')
        process.stderr.write(`${event.type}${event.phase ? ` ${event.phase}` : ''} at ${seconds()} s\n`);
    },
  });
  const buildS = seconds();
  sample();
  clearInterval(timer);
  const outside = await watchedPeak();
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
    stream,
    buildS,
    indexFinishedS,
    peakSampledRssMb: mb(peak),
    // The highest RSS seen from outside every 100 ms, split into anonymous and file-backed pages (RssFile: mapped files, reclaimable).
    peakWatched: outside,
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
  if (watcher.exitCode === null) watcher.kill('SIGKILL');
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
reporter.done();
