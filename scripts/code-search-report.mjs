#!/usr/bin/env node
// Scores loci on the developer-question sets (eval/code-questions/*.json) the way a developer
// meets it: each checkout is indexed into a temporary store with the default embedder and
// config, then every query is searched with default settings — `files: true` (`loci search
// --files`) for the file-level numbers, plain chunks for "definition at rank 1".
//
//   npm run build
//   node scripts/code-search-report.mjs --corpora /work/corpora [--out report.json] [--mode hybrid|vector|lexical] [--config loci.config.json] [eval/code-questions/hono.json …]
//
// --config applies one config file to every set (e.g. {"search":{"ranker":"none"}}), to measure a
// change against the default on the same queries. A comma-separated list (`default` for none)
// indexes each checkout once and reports every search config on that one index (search.* keys
// only: the index is built with the first).
//
// The checkout of eval/code-questions/<name>.json is <corpora>/<name>, extracted at the set's
// commit (scripts/code-question-set.mjs --git-dir does it). Per set and kind:
//   top1 / top5   share of queries whose first / any of the first five files is a gold file
//   mrr           mean 1/rank of the first gold file (0 past rank 100)
//   testsTop5     share of the first five files that are tests (scripts/code-paths.mjs)
//   testTop1      queries whose first file is a test
//   otherTop5     share of the first five files that are not implementation: tests, docs,
//                 changelogs, examples, data files
//   top1WithoutTests / top1ImplementationOnly   top-1 if tests / all non-implementation files
//                 were taken out of the same ranking afterwards (the headroom of knowing a
//                 file's role, not a ranking loci produces)
// and for symbols: definitionTop1 / definitionMrr, the rank of the first chunk that spans the
// definition line. Prints a table and writes JSON (with every miss and its top files) to --out.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNonImplementationPath, isTestPath } from './code-paths.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { createLoci } = await import(join(here, '..', 'dist', 'index.js'));

const flags = new Set(['--corpora', '--out', '--mode', '--config']);
function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}
const corpora = resolve(argument('corpora', '/work/corpora'));
const outPath = argument('out', '');
const mode = argument('mode', '');
const configPaths = argument('config', 'default').split(',');
const configs = configPaths.map((path) => (path === 'default' ? undefined : JSON.parse(readFileSync(path, 'utf8'))));
const positional = process.argv.slice(2).filter((value, index, all) => !value.startsWith('--') && !flags.has(all[index - 1]));
const setPaths =
  positional.length > 0
    ? positional
    : readdirSync(join(here, '..', 'eval', 'code-questions'))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => join(here, '..', 'eval', 'code-questions', name));

const RANK_DEPTH = 100;

function rankOf(paths, gold) {
  const index = paths.findIndex((path) => gold.includes(path));
  return index < 0 ? null : index + 1;
}

function summarise(entries, rankField) {
  const count = entries.length;
  const ranks = entries.map((entry) => entry[rankField]);
  const share = (test) => (count === 0 ? 0 : round(ranks.filter(test).length / count));
  return {
    queries: count,
    top1: share((rank) => rank === 1),
    top5: share((rank) => rank !== null && rank <= 5),
    mrr: count === 0 ? 0 : round(ranks.reduce((sum, rank) => sum + (rank ? 1 / rank : 0), 0) / count),
  };
}

function testCrowding(entries) {
  const top5 = entries.flatMap((entry) => entry.topFiles.slice(0, 5));
  const share = (test) => (top5.length === 0 ? 0 : round(top5.filter(test).length / top5.length));
  const atTop = (field) => (entries.length === 0 ? 0 : round(entries.filter((entry) => entry[field] === 1).length / entries.length));
  return {
    testsTop5: share(isTestPath),
    testTop1: entries.filter((entry) => entry.topFiles[0] !== undefined && isTestPath(entry.topFiles[0])).length,
    otherTop5: share(isNonImplementationPath),
    top1WithoutTests: atTop('rankWithoutTests'),
    top1ImplementationOnly: atTop('rankImplementationOnly'),
  };
}

function round(value) {
  return Math.round(value * 1000) / 1000;
}

async function scoreSet(setPath) {
  const set = JSON.parse(readFileSync(setPath, 'utf8'));
  const name = basename(setPath, '.json');
  const checkout = join(corpora, name);
  if (!existsSync(checkout)) throw new Error(`${checkout} is missing: extract ${set.repo}@${set.commit} there (scripts/code-question-set.mjs --git-dir).`);
  const workDir = mkdtempSync(join(tmpdir(), 'loci-code-report-'));
  const store = join(workDir, 'store');
  try {
    const indexer = createLoci({ root: checkout, store, ...(configs[0] ? { config: configs[0] } : {}) });
    const indexStarted = performance.now();
    const summary = await indexer.index();
    const indexSeconds = (performance.now() - indexStarted) / 1000;
    await indexer.close();
    const out = [];
    for (const config of configs) out.push(await searchSet(set, name, checkout, store, config, summary, indexSeconds));
    return out;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function searchSet(set, name, checkout, store, config, summary, indexSeconds) {
  const loci = createLoci({ root: checkout, store, ...(config ? { config } : {}) });
  try {
    const entries = [];
    const queryStarted = performance.now();
    for (const question of set.questions) {
      const options = { topK: RANK_DEPTH, ...(mode ? { mode } : {}) };
      const fileResults = (await loci.search(question.query, { ...options, files: true })).results;
      const topFiles = fileResults.map((result) => result.path);
      const entry = {
        id: question.id,
        kind: question.kind,
        query: question.query,
        gold: question.gold,
        rank: rankOf(topFiles, question.gold),
        rankWithoutTests: rankOf(
          topFiles.filter((path) => !isTestPath(path)),
          question.gold,
        ),
        rankImplementationOnly: rankOf(
          topFiles.filter((path) => !isNonImplementationPath(path)),
          question.gold,
        ),
        topFiles: topFiles.slice(0, 5),
      };
      if (question.kind === 'symbol' && typeof question.line === 'number') {
        const chunks = (await loci.search(question.query, options)).results;
        const index = chunks.findIndex((chunk) => question.gold.includes(chunk.path) && chunk.startLine <= question.line && question.line <= chunk.endLine);
        entry.definitionRank = index < 0 ? null : index + 1;
        entry.topChunks = chunks.slice(0, 3).map((chunk) => `${chunk.path}:${chunk.startLine}-${chunk.endLine}${chunk.symbol ? ` ${chunk.symbol}` : ''}`);
      }
      entries.push(entry);
    }
    const querySeconds = (performance.now() - queryStarted) / 1000;
    const questions = entries.filter((entry) => entry.kind === 'question');
    const symbols = entries.filter((entry) => entry.kind === 'symbol');
    const status = await loci.status({ checkChanges: false });
    return {
      name,
      repo: set.repo,
      commit: set.commit,
      language: set.language,
      split: set.split,
      embedder: status.embedder,
      files: summary.files.total,
      questions: { ...summarise(questions, 'rank'), ...testCrowding(questions) },
      symbols: {
        ...summarise(symbols, 'rank'),
        ...testCrowding(symbols),
        definitionTop1: summarise(symbols, 'definitionRank').top1,
        definitionMrr: summarise(symbols, 'definitionRank').mrr,
      },
      indexSeconds: round(indexSeconds),
      querySeconds: round(querySeconds),
      misses: entries.filter((entry) => entry.rank !== 1 || (entry.kind === 'symbol' && entry.definitionRank !== 1)),
    };
  } finally {
    await loci.close();
  }
}

// Micro-averages over every query of the sets in one split.
function pool(reports, split) {
  const members = reports.filter((report) => report.split === split);
  if (members.length === 0) return undefined;
  const mean = (kind, field) => {
    const total = members.reduce((sum, report) => sum + report[kind].queries, 0);
    return round(members.reduce((sum, report) => sum + report[kind][field] * report[kind].queries, 0) / total);
  };
  const fields = (kind, names) => Object.fromEntries(names.map((field) => [field, mean(kind, field)]));
  return {
    sets: members.map((report) => report.name),
    questions: fields('questions', ['top1', 'top5', 'mrr', 'testsTop5', 'otherTop5', 'top1WithoutTests', 'top1ImplementationOnly']),
    symbols: fields('symbols', ['top1', 'top5', 'mrr', 'definitionTop1', 'definitionMrr']),
  };
}

const perConfig = configs.map(() => []);
for (const setPath of setPaths) {
  process.stderr.write(`${basename(setPath)} …\n`);
  (await scoreSet(setPath)).forEach((report, index) => perConfig[index].push(report));
}
const results = perConfig.map((reports, index) => ({
  mode: mode || 'default',
  config: configs[index] ?? 'default',
  rankDepth: RANK_DEPTH,
  sets: reports,
  tune: pool(reports, 'tune'),
  heldOut: pool(reports, 'held-out'),
}));
if (outPath) writeFileSync(outPath, `${JSON.stringify(results.length === 1 ? results[0] : results, null, 1)}\n`);
for (const [index, result] of results.entries()) {
  if (results.length > 1) process.stdout.write(`\n${configPaths[index]}:\n`);
  const reports = result.sets;

  const percent = (value) => `${Math.round(value * 100)}%`.padStart(5);
  const rows = [
    '| set | split | questions top-1 | top-5 | MRR | tests in top 5 | non-implementation in top 5 | test at top 1 | top-1 without tests* | symbols file top-1 | definition at rank 1 | definition MRR |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...reports.map(
      (report) =>
        `| ${report.name} (${report.language}) | ${report.split} | ${percent(report.questions.top1)} | ${percent(report.questions.top5)} | ${report.questions.mrr.toFixed(3)} | ${percent(report.questions.testsTop5)} | ${percent(report.questions.otherTop5)} | ${report.questions.testTop1}/${report.questions.queries} | ${percent(report.questions.top1WithoutTests)} | ${percent(report.symbols.top1)} | ${percent(report.symbols.definitionTop1)} | ${report.symbols.definitionMrr.toFixed(3)} |`,
    ),
    ...[
      ['tune', result.tune],
      ['held-out', result.heldOut],
    ]
      .filter(([, pooled]) => pooled)
      .map(
        ([split, pooled]) =>
          `| **${split} (all queries)** | ${split} | ${percent(pooled.questions.top1)} | ${percent(pooled.questions.top5)} | ${pooled.questions.mrr.toFixed(3)} | ${percent(pooled.questions.testsTop5)} | ${percent(pooled.questions.otherTop5)} | | ${percent(pooled.questions.top1WithoutTests)} | ${percent(pooled.symbols.top1)} | ${percent(pooled.symbols.definitionTop1)} | ${pooled.symbols.definitionMrr.toFixed(3)} |`,
      ),
  ];
  process.stdout.write(`${rows.join('\n')}\n\n* tests taken out of the same ranking afterwards: headroom, not a result.\n`);
}
