// Query latency (warm, in-process) for lexical, vector and hybrid search, at the size of a
// real code corpus. Default corpus: this machine's Python standard library (~13k files),
// queried with CoSQA's natural-language Python questions.
// Usage: node bench/query-latency.mjs [--repo DIR] [--max-files N] [--queries N] [--ranker default|none|FILE] [--json]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createLoci } from '../dist/index.js';
import { argument, createReporter, machine, rssMB, summarize } from './lib/report.mjs';
import { EVAL_DIR } from './lib/eval-dir.mjs';

const reporter = createReporter();
const stdlib = () => execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
const source = argument('repo') ?? stdlib();
const maxFiles = Number(argument('max-files', '0'));
const queryCount = Number(argument('queries', '300'));
const work = mkdtempSync(join(tmpdir(), 'loci-bench-query-'));

// A bounded copy when --max-files is given (same files every run: sorted walk order).
let repo = source;
if (maxFiles > 0) {
  repo = join(work, 'repo');
  const files = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      if (files.length >= maxFiles) return;
      const path = join(folder, name);
      const stats = statSync(path, { throwIfNoEntry: false });
      if (!stats) continue;
      if (stats.isDirectory() && !['site-packages', '__pycache__', 'test', 'tests'].includes(name)) walk(path);
      else if (stats.isFile() && name.endsWith('.py')) files.push(path);
    }
  };
  walk(source);
  for (const file of files) {
    const target = join(repo, relative(source, file));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(file, target);
  }
}
const queries = readFileSync(join(EVAL_DIR, 'cosqa', 'queries.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .slice(0, queryCount)
  .map((line) => JSON.parse(line).text);

const loci = createLoci({
  root: repo,
  store: join(work, 'store'),
  config: { embedder: 'static', sources: { exclude: ['site-packages/', 'test/', 'tests/'] }, search: { ranker: argument('ranker', 'default') } },
});
try {
  const indexStarted = performance.now();
  const summary = await loci.index();
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  const chunks = summary.chunks.total;
  await loci.search('warm up', { topK: 10 }); // loads the in-memory index once
  for (const mode of ['lexical', 'vector', 'hybrid']) {
    for (const query of queries.slice(0, 20)) await loci.search(query, { topK: 10, mode });
    const times = [];
    for (const query of queries) {
      const started = performance.now();
      await loci.search(query, { topK: 10, mode });
      times.push(performance.now() - started);
    }
    reporter.row({ engine: 'loci', op: `search-${mode}`, n: chunks, files: summary.files.total, ...summarize(times), rssMB: rssMB(), indexSeconds: +indexSeconds.toFixed(1) });
  }
} finally {
  await loci.close();
  rmSync(work, { recursive: true, force: true });
}
reporter.done();
if (!process.argv.includes('--json')) console.log(JSON.stringify({ machine: machine(), corpus: source, note: 'times include query embedding (static model) and fetching result text' }));
