import { classifyFileRole, fileStem, testSubjectStem, type FileRole } from '../sources/file-role.js';
import { decodeFileAttributes } from '../store/file-attributes.js';
import type { CatalogEntry, Store } from '../store/spec.js';
import type { FusionCandidate, ScoreAdjustments } from './fusion.js';

/** How much each role is scaled down, and what a test lends its subject (config `search.*`). */
export interface RolePriorWeights {
  penalties: Readonly<Record<FileRole, number>>;
  subjectShare: number;
}

/** The shipped weights (the config schema's defaults say the same). */
export const DEFAULT_ROLE_PENALTIES: Readonly<Record<FileRole, number>> = { implementation: 0, test: 0.3, fixture: 0.3, example: 0.35, docs: 0.25, generated: 0.5, config: 0.1, lock: 0.8 };
export const DEFAULT_SUBJECT_SHARE = 0.15;

/** Each candidate file's role: stored by the indexer, else judged from its path. */
export async function rolesOf(store: Pick<Store, 'getCatalogEntries'>, paths: string[]): Promise<Map<string, FileRole>> {
  const catalog = await store.getCatalogEntries(paths);
  const roles = new Map<string, FileRole>();
  for (const path of paths) roles.set(path, roleOfEntry(path, catalog.get(path)));
  return roles;
}

export function roleOfEntry(path: string, entry: CatalogEntry | undefined): FileRole {
  return decodeFileAttributes(entry?.attributes).role ?? classifyFileRole(path, entry?.language ?? 'text');
}

/**
 * Scales each candidate by its file's role unless the query asks for that role, and lets a
 * test lend a little of its score to the file it tests (`compose.test.ts` → `compose.ts`),
 * so a question answered by both ranks the implementation first. Returns a new order.
 */
export function applyRolePriors(candidates: FusionCandidate[], roles: Map<string, FileRole>, asked: ReadonlySet<FileRole>, weights: RolePriorWeights): FusionCandidate[] {
  const { penalties, subjectShare } = weights;
  const subjectScores = new Map<string, number>();
  const scaled = candidates.map((candidate, order) => {
    const role = roles.get(candidate.path) ?? 'implementation';
    const penalty = asked.has(role) ? 0 : penalties[role];
    if (role === 'test' && !asked.has('test')) {
      const stem = testSubjectStem(candidate.path);
      if (stem !== undefined) subjectScores.set(stem, Math.max(subjectScores.get(stem) ?? 0, candidate.score));
    }
    return { candidate, role, penalty, lent: 0, score: candidate.score >= 0 ? candidate.score * (1 - penalty) : candidate.score * (1 + penalty), order };
  });
  if (subjectScores.size > 0) {
    for (const entry of scaled) {
      if (entry.role !== 'implementation') continue;
      const lent = subjectScores.get(fileStem(entry.candidate.path));
      // Scores in [0, 1] stay there: the lent share closes part of the gap to 1.
      if (lent !== undefined && lent > 0) entry.lent = lent;
      if (lent !== undefined && lent > 0) entry.score = entry.score <= 1 ? 1 - (1 - entry.score) * (1 - subjectShare * Math.min(lent, 1)) : entry.score + subjectShare * lent;
    }
  }
  scaled.sort((a, b) => b.score - a.score || a.order - b.order);
  return scaled.map(({ candidate, score, role, penalty, lent }) => {
    if (score === candidate.score && penalty === 0 && lent === 0) return candidate;
    const adjustments: ScoreAdjustments = { ...candidate.adjustments, role: { role, factor: 1 - penalty } };
    if (lent > 0) adjustments.fromTests = subjectShare * Math.min(lent, 1);
    return { ...candidate, score, adjustments };
  });
}
