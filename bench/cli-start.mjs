// Start-up of a one-shot process, beside Node's own: `node -e 0`, `loci --version`, and a
// one-shot `loci search` (a new process: load, open the store, embed the query, rank, print)
// on a repository. Runs alternate (A B C A B C …) so a drifting machine hits each alike; medians.
// Usage: node bench/cli-start.mjs --repo DIR [--runs 15] [--json]   (DIR indexed first if needed)
//        node bench/cli-start.mjs --self [--runs 15]                (a copy of loci's own src/)
//        node bench/cli-start.mjs --smoke                           (the same, 3 runs)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const smoke = process.argv.includes('--smoke');
const self = smoke || process.argv.includes('--self');
const runs = Number(argument('runs', smoke ? '3' : '15'));
const cli = new URL('../dist/interfaces/cli/main.js', import.meta.url).pathname;
let work;
let repo = argument('repo', '');
if (!repo) {
  if (!self) {
    process.stderr.write('cli-start: pass --repo DIR (e.g. a clone of vuejs/core), --self or --smoke\n');
    process.exit(2);
  }
  work = mkdtempSync(join(tmpdir(), 'loci-bench-start-'));
  repo = join(work, 'repo');
  cpSync(new URL('../src', import.meta.url).pathname, join(repo, 'src'), { recursive: true });
}
if (!existsSync(join(repo, '.loci', 'index.db'))) {
  const indexed = spawnSync(process.execPath, [cli, 'index', repo], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (indexed.status !== 0) process.exit(1);
}

const commands = [
  ['node -e 0', ['-e', '0']],
  ['loci --version', [cli, '--version']],
  ['loci search (one-shot)', [cli, 'search', 'how does the scheduler flush jobs', '--root', repo, '--json']],
];
const times = new Map(commands.map(([name]) => [name, []]));
try {
  for (let run = -1; run < runs; run++) {
    for (const [name, args] of commands) {
      const started = performance.now();
      const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const elapsed = performance.now() - started;
      if (result.status !== 0) throw new Error(`${name} failed: ${result.stderr}`);
      if (run >= 0) times.get(name).push(elapsed); // run -1 warms the page cache
    }
  }
  const node = summarize(times.get('node -e 0')).p50Ms;
  for (const [name] of commands) {
    const summary = summarize(times.get(name));
    reporter.row({ bench: 'cli-start', op: name, repo, runs, ...summary, overNodeMs: Math.round((summary.p50Ms - node) * 10) / 10 });
  }
  reporter.row({ bench: 'machine', op: JSON.stringify(machine()) });
} finally {
  if (work) rmSync(work, { recursive: true, force: true });
}
reporter.done();
