// Loopback load test of `loci serve`: N concurrent clients for S seconds, each looping over
// search / recall / context requests. Records throughput, p50/p95 and errors.
// Usage: node bench/http-load.mjs [--repo DIR] [--clients 50] [--seconds 30] [--json]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';
import { stopServer } from './lib/stop-server.mjs';

const reporter = createReporter();
const repo = argument('repo', new URL('..', import.meta.url).pathname);
const clients = Number(argument('clients', '50'));
const seconds = Number(argument('seconds', '30'));
const cli = new URL('../dist/interfaces/cli/main.js', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'loci-bench-http-'));
const store = join(work, 'store');
const token = 'bench-token';

await new Promise((resolve, reject) =>
  spawn(process.execPath, [cli, 'index', repo, '--store', store], { stdio: 'ignore' }).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`index failed: ${code}`)))),
);
const server = spawn(process.execPath, [cli, 'serve', '--root', repo, '--port', '0', '--token', token], { env: { ...process.env, LOCI_STORE: store } });
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
await fetch(`${base}/v1/memory/records`, { method: 'POST', headers, body: JSON.stringify({ namespace: 'bench/agent', text: 'Retries use exponential backoff with jitter' }) });
const requests = [
  ['search', '/v1/search', { query: 'how are lexical and vector scores fused', topK: 10 }],
  ['search', '/v1/search', { query: 'parse config file environment variables', topK: 10 }],
  ['recall', '/v1/memory/recall', { query: 'retry backoff', namespaces: ['bench/agent'] }],
  ['context', '/v1/context', { question: 'where is the store opened', maxTokens: 2000 }],
];
const times = { search: [], recall: [], context: [] };
let errors = 0;
let total = 0;
const deadline = performance.now() + seconds * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: clients }, async (_, client) => {
    for (let index = client; performance.now() < deadline; index++) {
      const [kind, path, body] = requests[index % requests.length];
      const begin = performance.now();
      try {
        const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
        await response.arrayBuffer();
        if (!response.ok) errors++;
      } catch {
        errors++;
      }
      times[kind].push(performance.now() - begin);
      total++;
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
await stopServer(server);
rmSync(work, { recursive: true, force: true });
reporter.row({
  bench: 'http-load',
  clients,
  seconds: Math.round(elapsed),
  requests: total,
  perSecond: Math.round(total / elapsed),
  errors,
  ...summarize([...times.search, ...times.recall, ...times.context]),
});
for (const [kind, list] of Object.entries(times)) reporter.row({ bench: 'http-load', kind, requests: list.length, ...summarize(list) });
reporter.row({ bench: 'machine', ...machine() });
reporter.done();
