#!/usr/bin/env node
// Trains loci's learned ranker (models/ranker-v1.json) on the tune halves of the dev sets
// and reports it on their test halves.
//
// Each set is indexed once with the real engine. Every tune/test query is searched with a
// neutral ranker (score = fused score, so the window is exactly the fused head the shipped
// ranker will see) and `explain`, which returns every candidate's features. A linear model
// per group (code chunks, prose chunks) is fitted with a pairwise logistic loss (RankNet),
// each set weighing the same, with L2 towards zero. The export is on the fused scale:
// score = bias + Σ weight × feature, the fused score's weight averaging 1.
// No rule or feature names a dataset, a query or an id.
//
//   npm run build
//   node scripts/eval-halves.mjs --from ../shared/eval/cosqa --out /tmp/eval/cosqa     (and scifact)
//   node scripts/commit-eval-set.mjs --repo <hono clone> --out /tmp/hono-commits
//   node scripts/train-ranker.mjs --sets /tmp/eval/scifact,/tmp/eval/cosqa,/tmp/hono-commits [--out models/ranker-v1.json]
//        [--embedder <id>] [--search '<search config JSON>'] [--depth 50] [--l2 0.01] [--fixed languageMatch=1]
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createLoci } from '../dist/index.js';
import { loadCorpus, loadQrels, loadQueries } from '../dist/eval/load-beir.js';
import { meanMetrics, scoreRanking } from '../dist/eval/metrics.js';
import { featureNames } from '../dist/retrieve/ranker/features.js';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}
const sets = argument('sets', '/tmp/eval/scifact,/tmp/eval/cosqa,/tmp/hono-commits').split(',');
const out = argument('out', 'models/ranker-v1.json');
const depth = Number(argument('depth', '50'));
// Extra search settings to train under (e.g. '{"fieldWeights":{"symbols":3}}'), for grids.
const searchConfig = JSON.parse(argument('search', '{}'));
// The shipped model is fitted with the offline `static` embedder; another embedder's cosines
// sit on another scale, so fit a model for it (then point search.ranker at the file).
const embedder = argument('embedder', undefined);
const l2 = Number(argument('l2', '0.01'));
const iterations = Number(argument('iterations', '300'));
// Features the dev sets cannot teach get a fixed weight instead: every dev corpus is in one
// language, so a query naming a language never separates candidates (see docs/quality.md).
const fixed = Object.fromEntries(
  argument('fixed', 'languageMatch=1')
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [name, value] = entry.split('=');
      if (!featureNames.includes(name) || !Number.isFinite(Number(value))) throw new Error(`--fixed expects feature=weight pairs, got "${entry}"`);
      return [name, Number(value)];
    }),
);
const METRIC = { scifact: 'ndcg@10', cosqa: 'mrr@10' };
const GROUPS = ['code', 'prose'];
const log = (message) => process.stderr.write(`${message}\n`);

const work = mkdtempSync(join(tmpdir(), 'loci-ranker-'));
const neutralFile = join(work, 'neutral.json');
const neutral = (name) => ({ bias: 0, weights: Object.fromEntries(featureNames.map((feature) => [feature, feature === 'fused' ? 1 : 0])), name });
writeFileSync(neutralFile, JSON.stringify({ format: 'loci-ranker', version: 1, name: 'neutral', depth, groups: { code: neutral(), prose: neutral() } }));

// 1. Candidates with features, per set and half.
const queries = []; // { set, half, judged, candidates: [{ path, group, x }] }
for (const folder of sets) {
  const set = basename(folder).replace(/-commits$/, '');
  const tree = join(folder, 'tree');
  const root = existsSync(tree) ? tree : work;
  const store = join(work, `${set}-store`);
  const loci = createLoci({ root, store, ...(embedder ? { embedder } : {}), config: { search: { ...searchConfig, ranker: neutralFile } } });
  if (root === tree) await loci.index();
  else await loci.indexDocuments((await loadCorpus(folder)).map((document) => ({ id: document.id, text: document.text, ...(document.title ? { title: document.title } : {}) })));
  const texts = new Map((await loadQueries(folder)).map((query) => [query.id, query.text]));
  for (const half of ['tune', 'test']) {
    for (const [id, judged] of await loadQrels(folder, half)) {
      const text = texts.get(id);
      if (text === undefined) continue;
      const response = await loci.search(text.trim() === '' ? '(empty)' : text, { topK: 100, files: true, explain: true });
      // topK 100 as `loci eval` asks (the fused pool depends on it); the ranker sees the first `depth` files.
      const candidates = response.results
        .filter((result) => result.ranking)
        .map((result) => ({
          path: result.path,
          group: result.ranking?.group ?? 'prose',
          x: featureNames.map((name) => result.ranking?.features[name]?.value ?? 0),
        }));
      queries.push({ set, half, judged, candidates });
    }
  }
  await loci.close();
  log(`${set}: ${queries.filter((query) => query.set === set).length} queries`);
}
rmSync(work, { recursive: true, force: true });

// 2. Standardise per group on the tune half, then fit.
const D = featureNames.length;
const train = queries.filter((query) => query.half === 'tune');
const stats = {};
for (const group of GROUPS) {
  const rows = train.flatMap((query) => query.candidates.filter((candidate) => candidate.group === group).map((candidate) => candidate.x));
  const mean = new Array(D).fill(0);
  const sd = new Array(D).fill(0);
  for (const x of rows) x.forEach((value, index) => (mean[index] += value / rows.length));
  for (const x of rows) x.forEach((value, index) => (sd[index] += (value - mean[index]) ** 2 / rows.length));
  stats[group] = { mean, sd: sd.map((value) => Math.sqrt(value) || 1), rows: rows.length };
}
const Z = 2 * D + 1; // code features, prose features, code intercept
const standardise = (candidate) => {
  const z = new Float64Array(Z);
  const { mean, sd } = stats[candidate.group];
  const offset = candidate.group === 'code' ? 0 : D;
  for (let index = 0; index < D; index++) z[offset + index] = featureNames[index] in fixed ? 0 : (candidate.x[index] - mean[index]) / sd[index];
  if (candidate.group === 'code') z[2 * D] = 1;
  return z;
};
for (const query of queries) for (const candidate of query.candidates) candidate.z = standardise(candidate);
const perSet = {};
for (const query of train) perSet[query.set] = (perSet[query.set] ?? 0) + 1;
const setCount = Object.keys(perSet).length;
const dot = (w, z) => z.reduce((sum, value, index) => sum + value * w[index], 0);
const w = new Float64Array(Z);
const m = new Float64Array(Z);
const v = new Float64Array(Z);
for (let step = 1; step <= iterations; step++) {
  const gradient = new Float64Array(Z);
  for (const query of train) {
    const positive = query.candidates.filter((candidate) => (query.judged.get(candidate.path) ?? 0) > 0);
    const negative = query.candidates.filter((candidate) => !((query.judged.get(candidate.path) ?? 0) > 0));
    if (positive.length === 0 || negative.length === 0) continue;
    const weight = 1 / perSet[query.set] / setCount / (positive.length * negative.length);
    for (const p of positive) {
      const sp = dot(w, p.z);
      for (const n of negative) {
        const sigma = 1 / (1 + Math.exp(sp - dot(w, n.z)));
        for (let index = 0; index < Z; index++) gradient[index] -= weight * sigma * (p.z[index] - n.z[index]);
      }
    }
  }
  for (let index = 0; index < Z; index++) {
    const g = gradient[index] + l2 * w[index];
    m[index] = 0.9 * m[index] + 0.1 * g;
    v[index] = 0.999 * v[index] + 0.001 * g * g;
    w[index] -= (0.05 * (m[index] / (1 - 0.9 ** step))) / (Math.sqrt(v[index] / (1 - 0.999 ** step)) + 1e-8);
  }
}

// 3. Export on the raw feature scale, the fused weight averaging 1.
const groups = {};
for (const group of GROUPS) {
  const offset = group === 'code' ? 0 : D;
  const { mean, sd } = stats[group];
  const weights = featureNames.map((_, index) => w[offset + index] / sd[index]);
  const bias = -weights.reduce((sum, weight, index) => sum + weight * mean[index], 0) + (group === 'code' ? w[2 * D] : 0);
  groups[group] = { bias, weights };
}
const fusedIndex = featureNames.indexOf('fused');
const scale = (groups.code.weights[fusedIndex] + groups.prose.weights[fusedIndex]) / 2;
if (!(scale > 0)) throw new Error(`The fitted fused weight is not positive (${scale}); refusing to export a ranker that inverts the fused order.`);
const rounded = (value) => Number((value / scale).toPrecision(6));
const model = { format: 'loci-ranker', version: 1, name: 'loci-ranker-v1', depth, groups: {}, calibration: undefined };
for (const group of GROUPS) {
  model.groups[group] = {
    bias: rounded(groups[group].bias),
    weights: Object.fromEntries(featureNames.map((name, index) => [name, name in fixed ? fixed[name] : rounded(groups[group].weights[index])])),
  };
}

const scoreOf = (candidate) => {
  const group = model.groups[candidate.group];
  return candidate.x.reduce((sum, value, index) => sum + value * group.weights[featureNames[index]], group.bias);
};
// Calibration: result scores = logistic((score − center) / spread) over the training windows,
// spread twice their standard deviation: at one, strong matches (a name in the symbol, path
// and text) showed 1.000 (3.6% of the developer questions' top-10 results), and a capped
// score could not tell them apart; at two none do (docs/quality.md).
const logits = train.flatMap((query) => query.candidates.map((candidate) => scoreOf(candidate)));
const center = logits.reduce((sum, value) => sum + value, 0) / logits.length;
const spread = 2 * Math.sqrt(logits.reduce((sum, value) => sum + (value - center) ** 2, 0) / logits.length) || 1;
model.calibration = { center: Number(center.toPrecision(6)), spread: Number(spread.toPrecision(6)) };

// 4. Report: fused order vs the ranker, per set and half.

const report = {};
for (const set of Object.keys(perSet)) {
  const metric = METRIC[set] ?? 'recall@10';
  for (const half of ['tune', 'test']) {
    const mine = queries.filter((query) => query.set === set && query.half === half);
    const fused = meanMetrics(
      mine.map((query) =>
        scoreRanking(
          query.candidates.map((candidate) => candidate.path),
          query.judged,
        ),
      ),
    )[metric];
    const ranked = meanMetrics(
      mine.map((query) => {
        const order = query.candidates.map((candidate, index) => ({ candidate, index, score: scoreOf(candidate) }));
        order.sort((a, b) => b.score - a.score || a.index - b.index);
        return scoreRanking(
          order.map((entry) => entry.candidate.path),
          query.judged,
        );
      }),
    )[metric];
    report[`${set} ${half} ${metric}`] = { fused: Number(fused.toFixed(4)), ranker: Number(ranked.toFixed(4)), queries: mine.length };
    log(`${set} ${half}: ${metric} fused ${fused.toFixed(4)} → ranker ${ranked.toFixed(4)} (${mine.length} queries)`);
  }
}
model.about = {
  trainedBy: 'scripts/train-ranker.mjs',
  trainedOn: `tune halves of ${Object.keys(perSet).join(', ')} (${train.length} queries); candidates = the fused top ${depth} files`,
  embedder: embedder ?? 'static (default)',
  loss: `pairwise logistic, L2 ${l2}, ${iterations} Adam steps, each set weighing the same`,
  fixed: Object.keys(fixed).length > 0 ? fixed : undefined,
  measured: report,
};
writeFileSync(out, `${JSON.stringify(model, null, 2)}\n`);
log(`wrote ${out}`);
