#!/usr/bin/env node
// Fits the hybrid fusion weights on the tune halves and reports them on the test halves:
// each set is indexed once, then every weight setting in the grid searches it with the
// real engine. One setting must serve every set (no per-dataset or per-query rules); the
// objective is the mean, over sets, of each set's metric relative to lexical-only on it,
// so no set dominates by scale. Prints a table and the chosen setting.
//
//   npm run build
//   node scripts/eval-halves.mjs --from ../shared/eval/cosqa --out /tmp/eval/cosqa      (and scifact)
//   node scripts/commit-eval-set.mjs --repo <hono clone> --out /tmp/hono-commits
//   node scripts/tune-fusion.mjs --sets /tmp/eval/scifact,/tmp/eval/cosqa,/tmp/hono-commits [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createLoci } from '../dist/index.js';
import { loadCorpus, loadQrels, loadQueries } from '../dist/eval/load-beir.js';
import { meanMetrics, scoreRanking } from '../dist/eval/metrics.js';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const sets = argument('sets', '/tmp/eval/scifact,/tmp/eval/cosqa,/tmp/hono-commits').split(',');
const METRIC = { scifact: 'ndcg@10', cosqa: 'mrr@10' };
const grid = [];
for (const vector of [0, 0.1, 0.2, 0.3, 0.5, 0.8]) for (const mention of [0, 0.5, 1]) grid.push({ lexical: 1, vector, mention });
const log = (message) => process.stderr.write(`${message}\n`);
const work = mkdtempSync(join(tmpdir(), 'loci-tune-'));

const results = []; // { set, weights, tune, test }
for (const folder of sets) {
  const name = basename(folder).replace(/-commits$/, '');
  const metric = METRIC[name] ?? 'recall@10';
  const tree = join(folder, 'tree');
  const root = existsSync(tree) ? tree : work;
  const store = join(work, `${name}-store`);
  const builder = createLoci({ root, store });
  if (root === tree) await builder.index();
  else await builder.indexDocuments((await loadCorpus(folder)).map((document) => ({ id: document.id, text: document.text, ...(document.title ? { title: document.title } : {}) })));
  await builder.close();
  const queries = new Map((await loadQueries(folder)).map((query) => [query.id, query]));
  const halves = { tune: await loadQrels(folder, 'tune'), test: await loadQrels(folder, 'test') };
  const score = async (loci, qrels, mode) => {
    const all = [];
    for (const [id, judged] of qrels) {
      const query = queries.get(id);
      if (!query) continue;
      const response = await loci.search(query.text.trim() === '' ? '(empty)' : query.text, { topK: 100, files: true, ...(mode ? { mode } : {}) });
      all.push(
        scoreRanking(
          response.results.map((result) => result.path),
          judged,
        ),
      );
    }
    return meanMetrics(all)[metric];
  };
  const lexical = createLoci({ root, store });
  const baseline = { tune: await score(lexical, halves.tune, 'lexical'), test: await score(lexical, halves.test, 'lexical') };
  await lexical.close();
  log(`${name}: lexical ${metric} tune ${baseline.tune.toFixed(4)} test ${baseline.test.toFixed(4)}`);
  for (const weights of grid) {
    const loci = createLoci({ root, store, config: { search: { weights } } });
    const tune = await score(loci, halves.tune);
    const test = await score(loci, halves.test);
    await loci.close();
    results.push({ set: name, metric, weights, tune, test, baseline });
  }
}
rmSync(work, { recursive: true, force: true });

const key = (weights) => `${weights.vector}/${weights.mention}`;
const rows = grid.map((weights) => {
  const mine = results.filter((result) => key(result.weights) === key(weights));
  const relative = (half) => mine.reduce((sum, result) => sum + result[half] / result.baseline[half], 0) / mine.length;
  return { weights, tuneObjective: relative('tune'), testObjective: relative('test'), perSet: mine };
});
rows.sort((a, b) => b.tuneObjective - a.tuneObjective);
const json = process.argv.includes('--json');
for (const row of rows) {
  const line = { vector: row.weights.vector, mention: row.weights.mention, tune: Number(row.tuneObjective.toFixed(4)), test: Number(row.testObjective.toFixed(4)) };
  for (const result of row.perSet) line[`${result.set} tune/test`] = `${result.tune.toFixed(4)}/${result.test.toFixed(4)}`;
  console.log(
    json
      ? JSON.stringify(line)
      : Object.entries(line)
          .map(([k, v]) => `${k}=${v}`)
          .join('  '),
  );
}
const best = rows[0];
log(`chosen on tune: vector ${best.weights.vector}, mention ${best.weights.mention} (objective tune ${best.tuneObjective.toFixed(4)}, test ${best.testObjective.toFixed(4)}; 1 = lexical only)`);
