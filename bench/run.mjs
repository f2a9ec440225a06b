// `npm run bench`: the short suite (about 5 minutes here). `npm run bench -- --full`: all of it.
// `npm run bench -- --smoke`: every kind of step at toy sizes, loci and its own optional usearch
// only (no peer install), so CI runs the bench code on each change and it cannot rot.
// Each script prints its own table (or JSON lines with --json). Peers are installed on first
// use from bench/package.json (npm registry), never at test time and never into loci.
// Options: --full, --json, --repo DIR (a real repository for the repo-based benches; without
// it they are skipped), --repos DIR,DIR (extra real chunks for the peer comparison).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EVAL_DIR, hasEvalData } from './lib/eval-dir.mjs';
import { argument } from './lib/report.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const full = process.argv.includes('--full');
const smoke = process.argv.includes('--smoke');
const json = process.argv.includes('--json') ? ['--json'] : [];
const repo = argument('repo');
const repos = argument('repos');

if (!existsSync(new URL('../dist/index.js', import.meta.url))) execFileSync('npm', ['run', 'build'], { cwd: new URL('..', import.meta.url), stdio: 'inherit' });
if (!smoke && !existsSync(new URL('./node_modules/@orama/orama', import.meta.url))) {
  process.stderr.write('installing the peer engines (bench/package.json) ...\n');
  // Exact versions in bench/package.json, no lock file: the peers' native packages list
  // optional per-platform dependencies that `npm ci` refuses to reconcile across machines.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: here, stdio: 'inherit' });
}

const smokeNeedsEval = [
  ['peers.mjs', '--sizes', '2000', '--queries', '20', '--engines', 'loci,usearch'],
  ['query-latency.mjs', '--max-files', '200', '--queries', '20'],
  ['memory.mjs', '--records', '2000', '--namespaces', '10', '--queries', '20'],
];
if (smoke && !hasEvalData()) process.stderr.write(`(smoke: ${smokeNeedsEval.map(([script]) => script).join(', ')} skipped: no dev sets in ${EVAL_DIR}; set LOCI_EVAL_DIR)\n`);
const steps = smoke
  ? [
      ['index-repo.mjs', '--files', '300'],
      ['lexical-scale.mjs', '--sizes', '5000', '--queries', '20'],
      ['http-memory.mjs', '--sizes', '300', '--queries', '10'],
      ['console-search.mjs', '--smoke'],
      ['cli-start.mjs', '--smoke'],
      ...(hasEvalData() ? smokeNeedsEval : []),
    ]
  : full
    ? [
        ['peers.mjs', '--sizes', '10000,100000,1000000', '--queries', '200', ...(repos ? ['--repos', repos] : [])],
        ['index-repo.mjs'],
        ['lexical-scale.mjs', '--sizes', '10000,100000,1000000', ...(repos ? ['--repos', repos] : [])],
        ['hnsw-breadth.mjs', '--n', '1000000', ...(repos ? ['--repos', repos] : [])],
        ['query-latency.mjs'],
        ['memory.mjs'],
        ['postgres.mjs', '--n', '100000', '--writers', '4'],
        ['http-memory.mjs', '--sizes', '10000,100000'],
        ...(repo
          ? [
              ['search-during-index.mjs', '--repo', repo],
              ['watch-latency.mjs', '--repo', repo],
              ['branch-switch.mjs', '--repo', repo],
              ['context-latency.mjs', '--repo', repo],
              ['http-load.mjs', '--repo', repo],
              ['console-search.mjs', '--repo', repo],
              ['cli-start.mjs', '--repo', repo],
            ]
          : []),
      ]
    : [
        ['peers.mjs', '--sizes', '10000,100000', '--queries', '100', '--engines', 'loci,lancedb,sqlite,usearch'],
        ['peers.mjs', '--sizes', '10000', '--queries', '100', '--engines', 'loci,orama,minisearch'],
        ['index-repo.mjs', '--files', '10000'],
        // CLI start beside `node -e 0` (and a one-shot search) on a repository, loci's own sources without one.
        ['cli-start.mjs', ...(repo ? ['--repo', repo] : ['--self'])],
        ...(repo
          ? [
              ['search-during-index.mjs', '--repo', repo],
              ['console-search.mjs', '--repo', repo],
            ]
          : []),
      ];

let failed = 0;
for (const [script, ...args] of steps) {
  process.stderr.write(`\n== ${script} ${args.join(' ')}\n`);
  // A 1M-chunk run holds every peer's copy of the data at once: more heap than Node's default.
  const result = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=16384', `${here}${script}`, ...args, ...json], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
if (!repo && !smoke) process.stderr.write('\n(repository benches skipped: pass --repo DIR, e.g. a clone of vuejs/core)\n');
process.exit(failed > 0 ? 1 : 0);
