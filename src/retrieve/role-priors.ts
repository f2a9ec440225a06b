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
  const { subjectShare } = weights;
  const scaled = scaleByRole(candidates, roles, asked, weights);
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

/** Each candidate's score after its role's penalty and what tests lend (a file of unknown role counts as implementation). */
function scaleByRole(candidates: FusionCandidate[], roles: ReadonlyMap<string, FileRole>, asked: ReadonlySet<FileRole>, weights: RolePriorWeights): Scaled[] {
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
  return scaled;
}

/** Paths whose roles are read first: the lead's depth this many times over (at least FIRST_ROLES), then four times as many each round. */
const LEAD_ROLES_PER_UNIT = 4;
const FIRST_ROLES = 16;

/**
 * The roles applyRolePriors needs to order `candidates` exactly as it would with every file's
 * role: only a file that can reach the lead, or lend to a file that can, changes the order
 * (below the lead every candidate keeps its retrieval order whatever its role). Reads the roles
 * of the first files, of every file named like a test and of every file a test could lend to,
 * then more until no file left unread can score into the lead: a penalty never raises a
 * score, so a file whose own score falls below the lead's lowest cannot join it (one that ties
 * could win by its place: it is read). A search reads a few dozen catalog entries instead of
 * one per candidate file (hundreds); at worst, with the first files all penalised, it reads
 * them all over a few rounds.
 */
export async function rolesForPriors(
  store: Pick<Store, 'getCatalogEntries'>,
  candidates: FusionCandidate[],
  asked: ReadonlySet<FileRole>,
  weights: RolePriorWeights,
  files = false,
): Promise<Map<string, FileRole>> {
  // Depth 0: the priors order nothing. A score that is not a number makes the order of the
  // sort depend on every score, read or not: every role then.
  if (weights.depth === 0) return new Map();
  const paths = [...new Set(candidates.map((candidate) => candidate.path))];
  if (candidates.some((candidate) => Number.isNaN(candidate.score))) return rolesOf(store, paths);
  // A file named like a test may lend; a file named like a tested one may borrow.
  const wanted = new Set<string>();
  const lenders = new Set<string>();
  for (const path of paths) {
    const stem = testSubjectStem(path);
    if (stem === undefined) continue;
    lenders.add(stem);
    wanted.add(path);
  }
  if (lenders.size > 0) for (const path of paths) if (lenders.has(fileStem(path))) wanted.add(path);
  const roles = new Map<string, FileRole>();
  let first = Math.max(FIRST_ROLES, weights.depth * LEAD_ROLES_PER_UNIT);
  for (;;) {
    for (const path of paths.slice(0, first)) wanted.add(path);
    for (const [path, role] of await rolesOf(
      store,
      [...wanted].filter((path) => !roles.has(path)),
    ))
      roles.set(path, role);
    if (first >= paths.length) return roles;
    // The lead's lowest unit score, from the files read (their scores are exact: every lender is read).
    const best = new Map<string | number, number>();
    let highestUnread = Number.NEGATIVE_INFINITY;
    for (const entry of scaleByRole(candidates, roles, asked, weights)) {
      const { path, rowId } = entry.candidate;
      if (!roles.has(path)) {
        highestUnread = Math.max(highestUnread, entry.candidate.score);
        continue;
      }
      const unit = files ? path : rowId;
      best.set(unit, Math.max(best.get(unit) ?? Number.NEGATIVE_INFINITY, entry.score));
    }
    if (highestUnread === Number.NEGATIVE_INFINITY) return roles;
    const units = [...best.values()].sort((a, b) => b - a);
    const lowestLead = units[weights.depth - 1];
    if (lowestLead !== undefined && highestUnread < lowestLead) return roles;
    first *= LEAD_ROLES_PER_UNIT;
  }
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
