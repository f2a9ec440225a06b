#!/usr/bin/env node
// Builds a code-search evaluation set from a real repository's git history, in BEIR layout:
// each commit's subject is a query; the files it modified are the relevant documents; they
// are searched in the tree as it was before those commits (a snapshot `--back` commits
// before the tip, on the first-parent line). The repository itself is never committed.
//
//   node scripts/commit-eval-set.mjs --repo /tmp/corpora/hono --out /tmp/hono-commits [--back 600] [--max 400] [--max-files 10] [--no-tests] [--without-lock-files]
//   node dist/interfaces/cli/main.js eval /tmp/hono-commits --corpus-dir /tmp/hono-commits/tree [--split tune|test|dev]
//
// Output: tree/ (the snapshot, via git archive), queries.jsonl, corpus.jsonl (empty: the
// corpus is tree/), qrels/dev.tsv (all), qrels/tune.tsv and qrels/test.tsv (two halves split
// by a hash of the commit id, so tuning on one half can be checked on the other).
// Rules, the same for every commit: merges, reverts and version bumps are skipped; only files
// that existed in the snapshot and were modified (not added, deleted or renamed) count; a
// commit touching more than --max-files such files is a sweeping change and is skipped; the
// trailing pull-request number "(#1234)" is dropped from the subject.
// --no-tests: the gold leaves out test files (scripts/code-paths.mjs), so a query is answered
// by the implementation it changed; commits that changed only tests are skipped. The other
// rules are unchanged (the sweeping rule still counts every modified file).
// --without-lock-files: lock files (package-lock.json, Pipfile.lock, …, which loci does not
// index by design) are deleted from tree/ and left out of the gold, so two builds — one that
// indexes them and one that does not — are compared on the same files.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isTestPath } from './code-paths.mjs';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const repo = resolve(argument('repo', ''));
const out = resolve(argument('out', ''));
const back = Number(argument('back', '600'));
const max = Number(argument('max', '400'));
const maxFiles = Number(argument('max-files', '10'));
const noTests = process.argv.includes('--no-tests');
const withoutLockFiles = process.argv.includes('--without-lock-files');
const { lockFileNames } = withoutLockFiles ? await import('../dist/sources/file-role.js') : { lockFileNames: [] };
const lockNames = new Set(lockFileNames.map((name) => name.toLowerCase()));
const isLockFile = (path) => lockNames.has(path.split('/').pop().toLowerCase());
if (!argument('repo') || !argument('out')) {
  process.stderr.write('usage: node scripts/commit-eval-set.mjs --repo DIR --out DIR [--back 600] [--max 400] [--max-files 10] [--no-tests]\n');
  process.exit(2);
}
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });

const snapshot = git('rev-parse', `HEAD~${back}`).trim();
const inSnapshot = new Set(git('ls-tree', '-r', '--name-only', snapshot).split('\n').filter(Boolean));
const commits = git('log', '--no-merges', '--reverse', '--format=%H%x09%s', `${snapshot}..HEAD`)
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const tab = line.indexOf('\t');
    return { id: line.slice(0, tab), subject: line.slice(tab + 1) };
  });

const queries = [];
const qrels = [];
const skipped = { release: 0, revert: 0, noFiles: 0, sweeping: 0, noGoldLeft: 0 };
for (const commit of commits) {
  if (queries.length >= max) break;
  const subject = commit.subject.replace(/\s*\(#\d+\)\s*$/, '').trim();
  if (/^v?\d+\.\d+\.\d+(\S*)?$/.test(subject) || /^(chore|build)(\([^)]*\))?: (release|bump|v?\d+\.\d+)/i.test(subject)) {
    skipped.release++;
    continue;
  }
  if (/^revert\b/i.test(subject)) {
    skipped.revert++;
    continue;
  }
  const changed = git('diff-tree', '--no-commit-id', '--name-status', '-r', '--no-renames', commit.id)
    .split('\n')
    .filter((line) => line.startsWith('M\t'))
    .map((line) => line.slice(2))
    .filter((path) => inSnapshot.has(path));
  if (changed.length === 0) {
    skipped.noFiles++;
    continue;
  }
  if (changed.length > maxFiles) {
    skipped.sweeping++;
    continue;
  }
  const gold = changed.filter((path) => !(noTests && isTestPath(path)) && !(withoutLockFiles && isLockFile(path)));
  if (gold.length === 0) {
    skipped.noGoldLeft++;
    continue;
  }
  queries.push({ _id: commit.id.slice(0, 12), text: subject });
  for (const path of gold) qrels.push([commit.id.slice(0, 12), path]);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'tree'), { recursive: true });
mkdirSync(join(out, 'qrels'), { recursive: true });
execFileSync('sh', ['-c', `git -C "${repo}" archive --format=tar ${snapshot} | tar -x -C "${join(out, 'tree')}"`]);
if (withoutLockFiles) for (const path of inSnapshot) if (isLockFile(path)) unlinkSync(join(out, 'tree', path));
writeFileSync(join(out, 'queries.jsonl'), `${queries.map((query) => JSON.stringify(query)).join('\n')}\n`);
writeFileSync(join(out, 'corpus.jsonl'), '');
const half = (id) => (createHash('sha256').update(id).digest()[0] % 2 === 0 ? 'tune' : 'test');
const header = 'query-id\tcorpus-id\tscore\n';
const lines = (rows) => `${header + rows.map(([query, path]) => `${query}\t${path}\t1`).join('\n')}\n`;
writeFileSync(join(out, 'qrels', 'dev.tsv'), lines(qrels));
writeFileSync(join(out, 'qrels', 'tune.tsv'), lines(qrels.filter(([query]) => half(query) === 'tune')));
writeFileSync(join(out, 'qrels', 'test.tsv'), lines(qrels.filter(([query]) => half(query) === 'test')));
process.stderr.write(
  `${queries.length} queries (${qrels.length} relevant files) from ${commits.length} commits after ${snapshot.slice(0, 12)}; skipped ${JSON.stringify(skipped)}\n` +
    `snapshot: ${inSnapshot.size} files in ${join(out, 'tree')}\n`,
);
