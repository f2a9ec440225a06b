import type { ScoredRow } from '../store/spec.js';

export type SignalName = 'lexical' | 'vector' | 'mention';

/** Each signal's normalised score for one chunk. */
export interface SignalScores {
  lexical?: number;
  vector?: number;
  /** 1 when the query names this chunk's symbol or file. */
  mention?: number;
}

export interface FusionWeights {
  lexical: number;
  vector: number;
  mention: number;
}

export type FusionMethod = 'weighted' | 'rrf';

/** How one signal moved one result: its raw score, normalised value, weight and share. */
export interface SignalContribution {
  raw: number;
  normalized: number;
  weight: number;
  contribution: number;
}

export interface FusionCandidate {
  rowId: number;
  path: string;
  score: number;
  /** The fused score, when a ranker has replaced `score` (thresholds apply to this). */
  fusedScore?: number;
  signals: SignalScores;
  contributions: Partial<Record<SignalName, SignalContribution>>;
  /** How role priors and name lookups moved the score after ranking (shown by `explain`). */
  adjustments?: ScoreAdjustments;
}

/**
 * `candidate` with another score (and its fused score or adjustments when given), written out
 * rather than spread: a ranked search copies each of its ~300 candidates once or twice, and
 * spread copies made the whole search 6–9 % slower (docs/benchmarks.md).
 */
export function rescoredCandidate(candidate: FusionCandidate, score: number, change: { fusedScore?: number; adjustments?: ScoreAdjustments } = {}): FusionCandidate {
  const out: FusionCandidate = { rowId: candidate.rowId, path: candidate.path, score, signals: candidate.signals, contributions: candidate.contributions };
  const fusedScore = change.fusedScore ?? candidate.fusedScore;
  if (fusedScore !== undefined) out.fusedScore = fusedScore;
  const adjustments = change.adjustments ?? candidate.adjustments;
  if (adjustments !== undefined) out.adjustments = adjustments;
  return out;
}
/** Does not compile once FusionCandidate has a field rescoredCandidate does not copy. */
const _copiesEveryField: Record<Exclude<keyof FusionCandidate, 'rowId' | 'path' | 'score' | 'signals' | 'contributions' | 'fusedScore' | 'adjustments'>, never> = {};

export interface ScoreAdjustments {
  /** The file's role and the factor its score was scaled by (1 when the query asked for it). */
  role?: { role: string; factor: number };
  /** Score a test of this file lent it (its best test's score × the share). */
  fromTests?: number;
  /** The chunk defines the symbol the query names: placed first (3 exact, 2 case, 1 last segment). */
  definition?: number;
  /** Below the lead the role priors order, a result keeps its retrieval place; its score (this) is capped at the one above it. */
  capped?: number;
}

export interface FusionInput {
  lexical: ScoredRow[];
  vector: ScoredRow[];
  mention: ScoredRow[];
  weights: FusionWeights;
  method: FusionMethod;
}

const RRF_K = 60;

/**
 * One ranking from several signals. `weighted` (the default) min-max normalises each
 * signal over its candidates and adds them with weights, so a weak signal can only nudge
 * a strong one; `rrf` sums 1/(60 + rank). With a single signal present, its raw score is
 * the score, so lexical-only results keep BM25 values and vector-only keep cosines.
 */
export function fuseScores(input: FusionInput): FusionCandidate[] {
  const lists: Array<[SignalName, ScoredRow[]]> = [
    ['lexical', input.lexical],
    ['vector', input.vector],
    ['mention', input.mention],
  ];
  const present = lists.filter(([, rows]) => rows.length > 0);
  const byRow = new Map<number, FusionCandidate>();
  for (const [signal, rows] of present) {
    for (const row of rows) {
      let candidate = byRow.get(row.rowId);
      if (!candidate) {
        candidate = { rowId: row.rowId, path: row.path, score: 0, signals: {}, contributions: {} };
        byRow.set(row.rowId, candidate);
      }
      candidate.signals[signal] = row.score;
    }
  }
  const single = present.length === 1 ? present[0] : undefined;
  for (const [signal, rows] of present) {
    const weight = single ? 1 : input.weights[signal];
    const normalize = single ? (score: number) => score : normalizer(rows, input.method);
    rows.forEach((row, rank) => {
      const candidate = byRow.get(row.rowId) as FusionCandidate;
      const normalized = input.method === 'rrf' && !single ? 1 / (RRF_K + rank + 1) : normalize(row.score);
      const contribution = weight * normalized;
      candidate.contributions[signal] = { raw: row.score, normalized, weight, contribution };
      candidate.score += contribution;
    });
  }
  return [...byRow.values()].sort((a, b) => b.score - a.score || a.rowId - b.rowId);
}

function normalizer(rows: ScoredRow[], method: FusionMethod): (score: number) => number {
  if (method === 'rrf') return () => 0;
  let low = Infinity;
  let high = -Infinity;
  for (const row of rows) {
    low = Math.min(low, row.score);
    high = Math.max(high, row.score);
  }
  // One candidate, or all equal: each is as good as the best.
  return high > low ? (score) => (score - low) / (high - low) : () => 1;
}
