// Search as you type in the web console: the requests the console's query box sends while a
// question is typed (one per keystroke from the third character: the worst case, no debounce
// merging), one in flight at a time as the console cancels older ones, against `loci serve`.
// Reports the server's own time (Server-Timing `app;dur`, what issue #24 bounds: p95 ≤ 50 ms
// on vuejs/core) and the wall time at the client (loopback).
// Usage: node bench/console-search.mjs --repo DIR [--json]   (DIR is indexed first if it has no index)
//        node bench/console-search.mjs --smoke               (a copy of loci's own src/)
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';
import { stopServer } from './lib/stop-server.mjs';

const reporter = createReporter();
const smoke = process.argv.includes('--smoke');
const cli = new URL('../dist/interfaces/cli/main.js', import.meta.url).pathname;
let work;
let repo = argument('repo', '');
if (!repo) {
  if (!smoke) {
    process.stderr.write('console-search: pass --repo DIR (e.g. a clone of vuejs/core), or --smoke\n');
    process.exit(2);
  }
  work = mkdtempSync(join(tmpdir(), 'loci-bench-console-'));
  repo = join(work, 'repo');
  cpSync(new URL('../src', import.meta.url).pathname, join(repo, 'src'), { recursive: true });
}
if (!existsSync(join(repo, '.loci', 'index.db'))) {
  const indexed = spawnSync(process.execPath, [cli, 'index', repo], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (indexed.status !== 0) process.exit(1);
}

// Developer questions, typed one character at a time.
const questions = [
  'how does the scheduler flush jobs',
  'nextTick implementation',
  'hydration mismatch warning',
  'defineComponent',
  'how are props normalized',
  'watch effect cleanup',
  'reactive proxy get trap',
  'compile template to render function',
  'v-model on custom components',
  'keep-alive cache pruning',
  'how are lexical and vector scores fused',
  'where is the bearer token checked',
];
const limit = Number(argument('questions', smoke ? '3' : String(questions.length)));
const token = 'bench-token-1234567890';
const server = spawn(process.execPath, [cli, 'serve', '--root', repo, '--port', '0', '--token', token], { stdio: ['ignore', 'ignore', 'pipe'] });
const base = await new Promise((resolve, reject) => {
  let seen = '';
  setTimeout(() => reject(new Error(`server did not start: ${seen}`)), 60_000).unref();
  server.stderr.on('data', (chunk) => {
    seen += chunk;
    const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
    if (match) resolve(match[1]);
  });
});

async function search(query) {
  const started = performance.now();
  const response = await fetch(`${base}/v1/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    // What the console's search page sends.
    body: JSON.stringify({ query, topK: 10, explain: true }),
  });
  if (!response.ok) throw new Error(`search "${query}": HTTP ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
  const wall = performance.now() - started;
  const server = Number(/app;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? Number.NaN);
  return { wall, server };
}

try {
  // `loci serve` builds each root's warm index at start; a user opens the page a moment later.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const first = await search('warm up');
  reporter.row({ bench: 'console-search', op: 'first search, 3 s after start', repo, wallMs: Math.round(first.wall), serverMs: Math.round(first.server) });
  const servers = [];
  const walls = [];
  for (const question of questions.slice(0, limit)) {
    for (let length = 3; length <= question.length; length++) {
      const { wall, server } = await search(question.slice(0, length));
      servers.push(server);
      walls.push(wall);
    }
  }
  reporter.row({ bench: 'console-search', op: 'server time per keystroke', repo, requests: servers.length, ...summarize(servers) });
  reporter.row({ bench: 'console-search', op: 'wall time per keystroke', repo, requests: walls.length, ...summarize(walls) });
  reporter.row({ bench: 'machine', op: JSON.stringify(machine()) });
} finally {
  await stopServer(server);
  if (work) rmSync(work, { recursive: true, force: true });
}
reporter.done();
