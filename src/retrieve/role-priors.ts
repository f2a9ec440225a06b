import { classifyFileRole, fileStem, testSubjectStem, type FileRole } from '../sources/file-role.js';
import { decodeFileAttributes } from '../store/file-attributes.js';
import type { CatalogEntry, Store } from '../store/spec.js';
import { rescoredCandidate, type FusionCandidate, type ScoreAdjustments } from './fusion.js';

/** How much each role is scaled down, what a test lends its subject, and how many results the priors order (config `search.*`). */
export interface RolePriorWeights {
  penalties: Readonly<Record<FileRole, number>>;
  subjectShare: number;
  /** The priors order this many leading results (files in files mode, chunks otherwise); the rest keep their retrieval order. */
  depth: number;
}

/** The shipped weights (the config schema's defaults say the same). */
export const DEFAULT_ROLE_PENALTIES: Readonly<Record<FileRole, number>> = { implementation: 0, test: 0.3, fixture: 0.3, example: 0.35, docs: 0.25, generated: 0.5, config: 0.1, lock: 0.8 };
export const DEFAULT_SUBJECT_SHARE = 0.15;
export const DEFAULT_ROLE_PRIOR_DEPTH = 5;

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

interface Scaled {
  candidate: FusionCandidate;
  role: FileRole;
  penalty: number;
  lent: number;
  score: number;
  order: number;
  /** The score before it was capped to keep the list in order (results below the lead). */
  capped?: number;
}

/**
 * Scales each candidate by its file's role unless the query asks for that role, and lets a
 * test lend a little of its score to the file it tests (`compose.test.ts` → `compose.ts`),
 * so a question answered by both ranks the implementation first. The priors decide the
 * lead — the first `depth` results (files when `files`) — and the rest keep their
 * retrieval order: tests, docs and changelogs a query matched follow the code instead of
 * falling off the page. Returns a new order whose scores never rise.
 */
export function applyRolePriors(candidates: FusionCandidate[], roles: Map<string, FileRole>, asked: ReadonlySet<FileRole>, weights: RolePriorWeights, files = false): FusionCandidate[] {
  const { penalties, subjectShare } = weights;
  const subjectScores = new Map<string, number>();
  const scaled: Scaled[] = candidates.map((candidate, order) => {
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
  const ordered = leadThenRetrievalOrder(scaled, weights.depth, files);
  return ordered.map((entry) => {
    const { candidate, score, role, penalty, lent, capped } = entry;
    if (score === candidate.score && penalty === 0 && lent === 0) return candidate;
    const adjustments: ScoreAdjustments = { ...candidate.adjustments };
    if (capped === undefined) adjustments.role = { role, factor: 1 - penalty };
    if (lent > 0 && capped === undefined) adjustments.fromTests = subjectShare * Math.min(lent, 1);
    if (capped !== undefined) adjustments.capped = capped;
    return rescoredCandidate(candidate, score, { adjustments });
  });
}

/**
 * The first `depth` units (files or chunks) as the priors ordered them, then every other
 * candidate in its retrieval order with its own score, capped so no score rises down the list.
 */
function leadThenRetrievalOrder(scaled: Scaled[], depth: number, files: boolean): Scaled[] {
  const unit = (entry: Scaled): string | number => (files ? entry.candidate.path : entry.candidate.rowId);
  const lead = new Set<string | number>();
  for (const entry of scaled) {
    if (lead.size >= depth && !lead.has(unit(entry))) break;
    lead.add(unit(entry));
  }
  const head = scaled.filter((entry) => lead.has(unit(entry)));
  if (head.length === scaled.length) return scaled;
  // The lowest score a lead unit shows (a file shows its best chunk; its other chunks are not results).
  let ceiling = Number.POSITIVE_INFINITY;
  const seen = new Set<string | number>();
  for (const entry of head) {
    if (seen.has(unit(entry))) continue;
    seen.add(unit(entry));
    ceiling = Math.min(ceiling, entry.score);
  }
  const rest = scaled
    .filter((entry) => !lead.has(unit(entry)))
    .sort((a, b) => a.order - b.order)
    .map((entry): Scaled => {
      const own = entry.candidate.score;
      const score = Math.min(own, ceiling);
      ceiling = score;
      return { ...entry, penalty: 0, lent: 0, score, ...(score !== own ? { capped: own } : {}) };
    });
  return [...head, ...rest];
}
