// Searches of a running `loci serve` while another process re-indexes part of its folder: the
// server catches up with that run's commits (new and deleted rows, its vector graph, its
// lexical index) between searches. Copies the folder (with its store in <folder>/.loci, made by
// `loci index`), serves the copy, searches every 20 ms, appends a line to `--edit` files of the
// copy and runs `loci index` on it from this checkout. Reports search latency over the whole loop.
// Usage: node bench/serve-during-reindex.mjs --root DIR [--build DIR] [--edit 600] [--seconds 45] [--port 56620] [--json]
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const root = argument('root');
if (!root) throw new Error('Pass --root DIR: a folder indexed by `loci index` (its store in DIR/.loci).');
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const here = new URL('..', import.meta.url).pathname;
const edits = Number(argument('edit', '600'));
const seconds = Math.min(600, Number(argument('seconds', '45')));
const port = Number(argument('port', '56620'));
const queries = ['read a file line by line', 'parse command line arguments', 'send an email with attachment', 'compute a hash of a file', 'decode an error', 'open a network connection'];

const work = mkdtempSync(join(tmpdir(), 'loci-bench-reindex-'));
const copy = join(work, 'root');
cpSync(root, copy, { recursive: true });
/** Text files of the copy outside its store, in a stable order, for the edits. */
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    if (name === '.loci' || name === '.git' || name === 'node_modules') continue;
    const path = join(dir, name);
    const info = statSync(path);
    if (info.isDirectory()) walk(path);
    else if (info.size > 0 && info.size < 200_000 && /\.(py|ts|js|go|rs|java|md|c|h)$/.test(name)) files.push(path);
  }
};
walk(copy);
const server = spawn(process.execPath, [join(build, 'dist/interfaces/cli/main.js'), 'serve', '--root', copy, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
try {
  // Up: a first search answered (bounded).
  const ready = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await search(queries[0])).ok) break;
    } catch {}
    if (Date.now() > ready) throw new Error('loci serve did not answer within 60 s.');
    await new Promise((done) => setTimeout(done, 200));
  }
  const latencies = [];
  let errors = 0;
  let index;
  const started = Date.now();
  for (let round = 0; Date.now() - started < seconds * 1000 && round < 10_000; round++) {
    if (!index && Date.now() - started > 5_000) {
      for (const file of files.slice(0, edits)) appendFileSync(file, '\n');
      const begun = performance.now();
      index = new Promise((done) => {
        const child = spawn(process.execPath, [join(here, 'dist/interfaces/cli/main.js'), 'index', copy], { stdio: 'ignore' });
        child.on('exit', (code) => done({ code, seconds: (performance.now() - begun) / 1000 }));
      });
    }
    const at = performance.now();
    const answer = await search(queries[round % queries.length]);
    latencies.push(performance.now() - at);
    if (!answer.ok) errors++;
    await new Promise((done) => setTimeout(done, 20));
  }
  const run = await index;
  reporter.row({
    build,
    files: files.length,
    edited: Math.min(edits, files.length),
    indexSeconds: Math.round(run.seconds * 10) / 10,
    indexExit: run.code,
    errors,
    over300ms: latencies.filter((ms) => ms > 300).length,
    ...summarize(latencies),
    maxMs: Math.round(Math.max(...latencies)),
  });
} finally {
  server.kill('SIGINT');
  await new Promise((done) => server.once('exit', done));
  rmSync(work, { recursive: true, force: true });
}
reporter.row({ bench: 'machine', ...machine() });
reporter.done();

async function search(query) {
  const response = await fetch(`http://127.0.0.1:${port}/v1/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, topK: 3 }),
    signal: AbortSignal.timeout(30_000),
  });
  await response.arrayBuffer();
  return response;
}
