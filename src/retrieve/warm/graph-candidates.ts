import type { RowFilter } from '../../store/filter-match.js';
import type { ScoredRow } from '../../store/spec.js';
import { GRAPH_COSINE_SLACK } from './hnsw-options.js';
import type { FlatVectorIndex } from './vector-index.js';
import { TopK } from '../../store/top-k.js';

/** What a graph walk proposes: row ids best first, each with usearch's cosine distance (1 − cosine of the graph's 16-bit copies). */
export interface GraphCandidates {
  keys: BigUint64Array;
  distances: Float32Array;
}

/**
 * The graph's candidates scored exactly (f32 cosine against the matrix), leaving out only those
 * that cannot be among the best `limit`. Once the first `limit` candidates have all passed the
 * filter, their lowest exact score is a floor the final `limit`-th best can only rise above; a
 * candidate whose graph cosine is below that floor by more than GRAPH_COSINE_SLACK has an exact
 * cosine below it, so it is not scored. The rows kept, and their order, are those of scoring
 * every candidate. At 1M rows the graph is asked for 500 candidates for 100 places, and ~220 are
 * scored (docs/benchmarks.md).
 */
export function scoreCandidates(flat: Pick<FlatVectorIndex, 'scoreRows'>, found: GraphCandidates, unit: Float32Array, accept: RowFilter | undefined, limit: number): ScoredRow[] {
  const { keys, distances } = found;
  const head = Math.min(Math.max(limit, 0), keys.length);
  const rows = flat.scoreRows(keys.subarray(0, head), unit, accept);
  if (head === keys.length) return rows;
  let floor = Number.POSITIVE_INFINITY;
  // A score that is not a number (a stored vector with a NaN in it) leaves the floor unknown.
  for (const row of rows) floor = Number.isNaN(row.score) ? Number.NaN : Math.min(floor, row.score);
  // Fewer than `limit` passed (a filter, rows gone since the graph was saved), or no distances: every candidate is scored.
  const bounded = rows.length === limit && distances.length === keys.length && Number.isFinite(floor);
  const bar = floor - GRAPH_COSINE_SLACK;
  const rest: number[] = [];
  // Only a distance known to be below the bar leaves a candidate out (a NaN never does).
  for (let index = head; index < keys.length; index++) if (!bounded || !(1 - (distances[index] as number) < bar)) rest.push(Number(keys[index]));
  for (const row of flat.scoreRows(rest, unit, accept)) rows.push(row);
  return rows;
}

/**
 * The graph's scored `rows` with the best `limit` of the rows held beside the graph (scored
 * exactly: only those can be among the best `limit` of all), best first (score, then row id),
 * cut to `limit`. A new array; `rows` is left as it was.
 */
export function withRowsBeside(
  flat: Pick<FlatVectorIndex, 'scoreRows'>,
  rows: readonly ScoredRow[],
  beside: ReadonlySet<number>,
  unit: Float32Array,
  accept: RowFilter | undefined,
  limit: number,
): ScoredRow[] {
  const out = [...rows];
  if (beside.size > 0) {
    const top = new TopK(limit);
    flat.scoreRows([...beside], unit, accept, { top, skip: new Set(rows.map((row) => row.rowId)) });
    for (const { id, score } of top.sorted()) out.push({ rowId: id, score, path: '' });
  }
  out.sort((a, b) => b.score - a.score || a.rowId - b.rowId);
  if (out.length > limit) out.length = limit;
  return out;
}
