// Memory over HTTP at scale: POST /v1/memory/records (interactions, as the Unity client logs
// them) until the memory holds each size, then POST /v1/memory/recall in one namespace and
// across all. Latency is measured at the client (loopback), `--clients` requests in flight.
// Usage: node bench/http-memory.mjs [--sizes 10000,100000] [--clients 4] [--queries 200] [--json]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';
import { stopServer } from './lib/stop-server.mjs';

const reporter = createReporter();
const sizes = argument('sizes', '10000,100000').split(',').map(Number);
const clients = Number(argument('clients', '4'));
const queryCount = Number(argument('queries', '200'));
const cli = new URL('../dist/interfaces/cli/main.js', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'loci-bench-http-memory-'));
const root = join(work, 'root');
mkdirSync(root);
writeFileSync(join(root, 'README.md'), '# bench\n');
const token = 'bench-token-1234567890';

const server = spawn(process.execPath, [cli, 'serve', '--root', root, '--port', '0', '--token', token], { stdio: ['ignore', 'ignore', 'pipe'] });
const base = await new Promise((resolve, reject) => {
  let seen = '';
  setTimeout(() => reject(new Error(`server did not start: ${seen}`)), 30_000).unref();
  server.stderr.on('data', (chunk) => {
    seen += chunk;
    const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
    if (match) resolve(match[1]);
  });
});
const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
const post = async (path, body) => {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
  return performance.now() - started;
};

const verbs = ['spawn', 'move', 'delete', 'paint', 'rotate', 'scale', 'light', 'group'];
const things = ['goblin', 'cube', 'archer', 'tree', 'door', 'lamp', 'wall', 'dragon', 'chest', 'torch'];
const places = ['near the gate', 'on the roof', 'by the river', 'in the hall', 'at the market', 'under the bridge'];
const outcomes = ['success', 'success', 'success', 'error', 'cancelled'];
const record = (index) => ({
  kind: 'interaction',
  namespace: `unity/session/${index % 100}`,
  prompt: `${verbs[index % verbs.length]} ${1 + (index % 7)} ${things[(index * 7) % things.length]}s ${places[(index * 3) % places.length]} (step ${index})`,
  response: `done ${index}`,
  outcome: outcomes[index % outcomes.length],
});

async function inParallel(count, task) {
  const times = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) times.push(await task(next++));
    }),
  );
  return times;
}

let written = 0;
try {
  for (const size of sizes) {
    const started = performance.now();
    const writes = await inParallel(size - written, (offset) => post('/v1/memory/records', record(written + offset)));
    const seconds = (performance.now() - started) / 1000;
    written = size;
    reporter.row({ bench: 'http-memory', op: 'POST /v1/memory/records', records: size, requests: writes.length, perSec: Math.round(writes.length / seconds), ...summarize(writes) });
    const one = await inParallel(queryCount, (index) =>
      post('/v1/memory/recall', { query: `${verbs[index % verbs.length]} ${things[index % things.length]}s`, namespaces: [`unity/session/${index % 100}`], outcome: 'success', topK: 5 }),
    );
    reporter.row({ bench: 'http-memory', op: 'recall, one namespace', records: size, requests: one.length, ...summarize(one) });
    const all = await inParallel(queryCount, (index) =>
      post('/v1/memory/recall', { query: `${verbs[index % verbs.length]} ${things[index % things.length]}s ${places[index % places.length]}`, topK: 5 }),
    );
    reporter.row({ bench: 'http-memory', op: 'recall, all namespaces', records: size, requests: all.length, ...summarize(all) });
  }
  reporter.row({ bench: 'machine', op: JSON.stringify(machine()), clients });
} finally {
  await stopServer(server);
  rmSync(work, { recursive: true, force: true });
}
reporter.done();
