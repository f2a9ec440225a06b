// How often the peer bench's true top 10 holds vectors with an exact twin, and what that caps
// recall@10 by id at: at sizes above the real chunk count the bench adds variants that keep
// 70 % of a chunk's lines, and variants that differ only in blank or stop-word lines embed to
// the very same vector. Which of two tied rows an engine returns is arbitrary, so counted by id
// an engine that breaks ties at random expects `ceiling` at best (peers.mjs also reports
// recall10Ties, which counts a tied row as right).
// Usage: node --max-old-space-size=16384 bench/vector-ties.mjs [--n 1000000] [--queries 100] [--repos DIR,DIR] [--json]
import { argument, createReporter, machine } from './lib/report.mjs';
import { benchQueries, cosinesTo, embedAll, realChunks, sizeTo, staticModel, topOf } from './lib/dataset.mjs';

const reporter = createReporter();
const n = Number(argument('n', '1000000'));
const queryCount = Number(argument('queries', '100'));
const repos = argument('repos', '').split(',').filter(Boolean);
const WARMUP = 5; // peers.mjs leaves its first five queries out of recall
const K = 10;

const model = await staticModel();
const d = model.dimensions;
const real = await realChunks(n, repos);
const { chunks, variants } = sizeTo(real, n, 11);
const queryTexts = benchQueries(queryCount, 7);
const queries = await embedAll(model, queryTexts, 'query');
const vectors = await embedAll(
  model,
  chunks.map((chunk) => chunk.text),
);

let boundaryTies = 0;
let twinRows = 0;
let ceiling = 0;
for (let q = WARMUP; q < queryTexts.length; q++) {
  const scores = cosinesTo(vectors, d, queries, q);
  const top = topOf(scores, K);
  const tenth = scores[top[K - 1]];
  const above = top.filter((row) => scores[row] > tenth).length;
  const tiedInTop = K - above;
  let tiedAll = 0;
  for (let row = 0; row < n; row++) if (scores[row] === tenth) tiedAll++;
  if (tiedAll > tiedInTop) boundaryTies++;
  // Expected hits by id when the rows tied at the 10th place are picked at random.
  ceiling += (above + (tiedInTop * tiedInTop) / tiedAll) / K;
  const counts = new Map();
  for (const row of top) counts.set(scores[row], (counts.get(scores[row]) ?? 0) + 1);
  for (const count of counts.values()) if (count > 1) twinRows += count;
}
const measured = queryTexts.length - WARMUP;
reporter.row({
  bench: 'vector-ties',
  n,
  variants,
  queries: measured,
  queriesTiedAt10th: boundaryTies,
  top10RowsWithATwin: twinRows,
  top10Rows: measured * K,
  recall10ByIdCeiling: Math.round((ceiling / measured) * 10000) / 10000,
});
reporter.row({ bench: 'machine', ...machine() });
reporter.done();
