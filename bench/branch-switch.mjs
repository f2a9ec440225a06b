// Cost of a git branch switch: copies a source tree into a temp git repository, makes a
// branch that rewrites 10 % of the files, then indexes, switches and re-indexes 10 times.
// Records each re-index's time and embeddings computed, and the store size after.
// Usage: node bench/branch-switch.mjs --repo DIR [--json]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoci } from '../dist/index.js';
import { argument, createReporter, machine } from './lib/report.mjs';

const reporter = createReporter();
const source = argument('repo');
if (!source) throw new Error('Pass --repo DIR (any source tree; it is copied, never changed).');
const work = mkdtempSync(join(tmpdir(), 'loci-bench-branch-'));
const repo = join(work, 'repo');
cpSync(source, repo, { recursive: true, filter: (path) => !/[/\\](\.git|node_modules|\.loci)$/.test(path) });
const git = (...args) =>
  execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' }, stdio: 'pipe' });
git('init', '-q', '-b', 'main');
git('add', '-A');
git('commit', '-qm', 'main');
git('checkout', '-qb', 'feature');
const files = [];
const walk = (folder) => {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (name === '.git') continue;
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(ts|js|py|go|md)$/.test(name)) files.push(path);
  }
};
walk(repo);
files.sort();
const changed = files.filter((_, index) => index % 10 === 0);
for (const file of changed) writeFileSync(file, `${readFileSync(file, 'utf8')}\n// changed on the feature branch\nexport const featureMarker = 1;\n`);
git('add', '-A');
git('commit', '-qm', 'feature');
git('checkout', '-q', 'main');

const loci = createLoci({ root: repo });
try {
  let started = performance.now();
  const first = await loci.index();
  reporter.row({ bench: 'branch-switch', step: 'initial index (main)', files: first.files.total, seconds: round((performance.now() - started) / 1000), computed: first.embeddings.computed });
  for (let step = 1; step <= 10; step++) {
    git('checkout', '-q', step % 2 === 1 ? 'feature' : 'main');
    started = performance.now();
    const summary = await loci.index();
    reporter.row({
      bench: 'branch-switch',
      step: `switch ${step} → ${step % 2 === 1 ? 'feature' : 'main'}`,
      files: summary.files.indexed,
      seconds: round((performance.now() - started) / 1000),
      computed: summary.embeddings.computed,
      cached: summary.embeddings.cached,
    });
  }
  const status = await loci.status({ checkChanges: false });
  reporter.row({
    bench: 'branch-switch',
    step: 'after 10 switches',
    changedFiles: changed.length,
    storeMB: round(status.bytesOnDisk / 2 ** 20),
    vectors: status.vectors,
    cachedVectors: status.cachedVectors,
  });
  reporter.row({ bench: 'machine', ...machine() });
} finally {
  await loci.close();
  rmSync(work, { recursive: true, force: true });
}
reporter.done();

function round(value) {
  return Math.round(value * 100) / 100;
}
