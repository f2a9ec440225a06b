#!/usr/bin/env node
// Turns a developer-question set (eval/code-questions/<repo>.json: questions written from
// reading the code and exact-symbol queries, gold = implementation files) into a BEIR folder
// for `loci eval --corpus-dir`: corpus ids are file paths relative to the checkout, and eval
// ranks files (`files: true`), so a query scores on the rank of its first gold file.
//
//   node scripts/code-question-set.mjs --questions eval/code-questions/hono.json --checkout /work/corpora/hono --out /tmp/hono-questions [--git-dir /work/.mirror/honojs+hono/repo]
//   node dist/interfaces/cli/main.js eval /tmp/hono-questions --corpus-dir /work/corpora/hono [--split question|symbol|dev]
//
// Output: queries.jsonl (metadata.category = question|symbol, so eval reports each kind),
// corpus.jsonl (empty: the corpus is the checkout), qrels/dev.tsv (all), qrels/question.tsv,
// qrels/symbol.tsv. With --git-dir and no checkout yet, the set's recorded commit is
// extracted there first (git archive), so every run searches the tree the gold was written on.
// The repositories are benchmark corpora: they are never committed, only the questions are.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const questionsPath = argument('questions', '');
const checkoutArgument = argument('checkout', '');
const outArgument = argument('out', '');
const gitDir = argument('git-dir', '');
if (!questionsPath || !checkoutArgument || !outArgument) {
  process.stderr.write('usage: node scripts/code-question-set.mjs --questions FILE.json --checkout DIR --out DIR [--git-dir BARE_GIT_DIR]\n');
  process.exit(2);
}
const checkout = resolve(checkoutArgument);
const out = resolve(outArgument);

const set = JSON.parse(readFileSync(questionsPath, 'utf8'));
if (!Array.isArray(set.questions) || typeof set.commit !== 'string') {
  process.stderr.write(`${questionsPath}: expected {repo, commit, language, questions:[…]}\n`);
  process.exit(2);
}
if (!existsSync(checkout)) {
  if (!gitDir) {
    process.stderr.write(`${checkout} does not exist: pass --git-dir to extract ${set.repo}@${set.commit.slice(0, 12)} there.\n`);
    process.exit(3);
  }
  mkdirSync(checkout, { recursive: true });
  execFileSync('sh', ['-c', 'git --git-dir="$0" archive --format=tar "$1" | tar -x -C "$2"', resolve(gitDir), set.commit, checkout]);
}
// Gold written on one commit is only meaningful on that tree: a missing gold file means the
// checkout is another version.
const missing = set.questions.flatMap((question) => question.gold.filter((path) => !existsSync(join(checkout, path))));
if (missing.length > 0) {
  process.stderr.write(`${checkout} lacks gold files (${missing.slice(0, 3).join(', ')}…): extract ${set.repo}@${set.commit} there.\n`);
  process.exit(3);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'qrels'), { recursive: true });
const queries = set.questions.map((question) => ({ _id: question.id, text: question.query, metadata: { category: question.kind } }));
writeFileSync(join(out, 'queries.jsonl'), `${queries.map((query) => JSON.stringify(query)).join('\n')}\n`);
writeFileSync(join(out, 'corpus.jsonl'), '');
const header = 'query-id\tcorpus-id\tscore\n';
const lines = (questions) => `${header + questions.flatMap((question) => question.gold.map((path) => `${question.id}\t${path}\t1`)).join('\n')}\n`;
writeFileSync(join(out, 'qrels', 'dev.tsv'), lines(set.questions));
for (const kind of ['question', 'symbol']) {
  writeFileSync(join(out, 'qrels', `${kind}.tsv`), lines(set.questions.filter((question) => question.kind === kind)));
}
const count = (kind) => set.questions.filter((question) => question.kind === kind).length;
process.stderr.write(`${set.repo}@${set.commit.slice(0, 12)}: ${count('question')} questions, ${count('symbol')} symbols → ${out} (corpus: ${checkout})\n`);
