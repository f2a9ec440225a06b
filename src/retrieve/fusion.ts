import type { ScoredRow } from '../store/spec.js';
import type { SignalScores } from './search-types.js';

export interface FusionCandidate {
  rowId: number;
  path: string;
  score: number;
  signals: SignalScores;
}

export interface FusionInput {
  lexical: ScoredRow[];
  vector: ScoredRow[];
  /** Weight of cosine similarity against max-normalised BM25. */
  vectorWeight?: number;
}

/**
 * One ranking from several signals. With one signal, its raw score is the score. With
 * both, BM25 is divided by the query's best BM25 (so it lies in (0, 1]) and added to a
 * weighted cosine: a weak signal can only nudge, never swamp, a strong one.
 */
export function fuseScores(input: FusionInput): FusionCandidate[] {
  const byRow = new Map<number, FusionCandidate>();
  for (const row of input.lexical) byRow.set(row.rowId, { rowId: row.rowId, path: row.path, score: 0, signals: { lexical: row.score } });
  for (const row of input.vector) {
    const existing = byRow.get(row.rowId);
    if (existing) existing.signals.vector = row.score;
    else byRow.set(row.rowId, { rowId: row.rowId, path: row.path, score: 0, signals: { vector: row.score } });
  }
  const candidates = [...byRow.values()];
  const hasLexical = input.lexical.length > 0;
  const hasVector = input.vector.length > 0;
  if (hasLexical && hasVector) {
    const maxLexical = Math.max(...input.lexical.map((row) => row.score), Number.MIN_VALUE);
    const weight = input.vectorWeight ?? 0.3;
    for (const candidate of candidates) {
      candidate.score = (candidate.signals.lexical ?? 0) / maxLexical + weight * (candidate.signals.vector ?? 0);
    }
  } else {
    for (const candidate of candidates) candidate.score = candidate.signals.lexical ?? candidate.signals.vector ?? 0;
  }
  return candidates.sort((a, b) => b.score - a.score || a.rowId - b.rowId);
}
