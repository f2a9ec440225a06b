import { decodeFileAttributes } from '../../store/file-attributes.js';
import type { CatalogEntry, ChunkRecord } from '../../store/spec.js';
import { rescoredCandidate, type FusionCandidate } from '../fusion.js';
import type { EarlyFeatures } from './early-features.js';
import { computeFeatures, FILE_HITS_DEPTH, type QueryFeatures } from './features.js';
import { rankerGroupOf, type Ranker, type RankingExplanation } from './model.js';

export interface RerankInput {
  ranker: Ranker;
  /** Fused candidates, best first. */
  fused: FusionCandidate[];
  /** Ranking files: the window holds the first `depth` files, each by its best fused chunk. */
  files: boolean;
  query: QueryFeatures;
  explain: boolean;
  /** Records and text features of some candidates, gathered before the fused list was known (rank-pool.ts). */
  early?: EarlyFeatures;
  getChunks(rowIds: number[]): Promise<ChunkRecord[]>;
  /** Catalog entries of the window's files (their imports live in `attributes`). */
  getCatalogEntries(paths: string[]): Promise<Map<string, CatalogEntry>>;
}

export interface RerankOutput {
  ranked: FusionCandidate[];
  /** Chunk records already fetched for the window (callers need not fetch them again). */
  records: Map<number, ChunkRecord>;
  explanations: Map<number, RankingExplanation>;
}

/**
 * Reorders the head of the fused list with the learned ranker. A result's score becomes the
 * ranker's calibrated score, in (0, 1); candidates below the window keep their fused
 * order, scored just under the window; each keeps its fused score for thresholds.
 */
export async function rerankCandidates(input: RerankInput): Promise<RerankOutput> {
  const { ranker, fused } = input;
  const window = pickWindow(fused, ranker.depth, input.files);
  const early = input.early;
  const records = new Map<number, ChunkRecord>();
  const missing: number[] = [];
  for (const { rowId } of window) {
    const record = early?.records.get(rowId);
    if (record) records.set(rowId, record);
    else missing.push(rowId);
  }
  if (missing.length > 0) for (const record of await input.getChunks(missing)) records.set(record.rowId, record);
  const present = window.filter((candidate) => records.has(candidate.rowId)); // rows deleted since ranking drop out
  const pairs = present.map((candidate) => ({ candidate, record: records.get(candidate.rowId) as ChunkRecord }));
  const catalog = await input.getCatalogEntries([...new Set(pairs.map(({ record }) => record.path))]);
  const features = computeFeatures({ ...input.query, imports: importsOf(catalog), fileHits: fileHitsOf(fused) }, pairs, early);
  const explanations = new Map<number, RankingExplanation>();
  const scored = pairs.map(({ candidate, record }, index) => {
    const group = rankerGroupOf(record.kind);
    const vector = features[index] as Float64Array;
    if (input.explain) explanations.set(candidate.rowId, ranker.explain(vector, group));
    return { candidate, score: ranker.score(vector, group), order: index };
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  const ranked: FusionCandidate[] = scored.map(({ candidate, score }) => rescoredCandidate(candidate, ranker.calibrate(score), { fusedScore: candidate.score }));
  // Below the window the fused order stands, each scored a little under the one above.
  let floor = ranked.length > 0 ? (ranked[ranked.length - 1] as FusionCandidate).score : 1;
  const inWindow = new Set(window.map((candidate) => candidate.rowId));
  for (const candidate of fused) {
    if (inWindow.has(candidate.rowId)) continue;
    floor *= 0.999;
    ranked.push(rescoredCandidate(candidate, floor, { fusedScore: candidate.score }));
  }
  return { ranked, records, explanations };
}

/**
 * Chunks mode: the first `depth` chunks. Files mode: each of the first `depth` files by its
 * best fused chunk, the way the ranker was trained (a file is not re-judged by whichever of
 * its chunks the model happens to like most, which would favour files with many chunks).
 */
function pickWindow(fused: FusionCandidate[], depth: number, files: boolean): FusionCandidate[] {
  if (!files) return fused.slice(0, depth);
  const paths = new Set<string>();
  const window: FusionCandidate[] = [];
  for (const candidate of fused) {
    if (paths.has(candidate.path)) continue;
    paths.add(candidate.path);
    window.push(candidate);
    if (window.length >= depth) break;
  }
  return window;
}

/** How many chunks each file has among the first FILE_HITS_DEPTH fused candidates. */
function fileHitsOf(fused: FusionCandidate[]): Map<string, number> {
  const hits = new Map<string, number>();
  const end = Math.min(fused.length, FILE_HITS_DEPTH);
  for (let index = 0; index < end; index++) {
    const path = (fused[index] as FusionCandidate).path;
    hits.set(path, (hits.get(path) ?? 0) + 1);
  }
  return hits;
}

/** The `imports` the indexer kept in each file's catalog attributes (none for other entries). */
function importsOf(catalog: Map<string, CatalogEntry>): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const [path, entry] of catalog) {
    const { imports } = decodeFileAttributes(entry.attributes);
    if (imports.length > 0) out.set(path, imports);
  }
  return out;
}
