import type { ChunkRecord, SearchFilter, Store } from '../store/spec.js';
import { rolesAskedFor, type FileRole } from '../sources/file-role.js';
import { tokenize } from '../lexical/tokenize.js';
import { definitionsFirst, type NameQuery } from './definitions.js';
import { fuseScores, type FusionCandidate } from './fusion.js';
import { extractMentions } from './mentions.js';
import { loadRanker, type RankingExplanation } from './ranker/model.js';
import { featuresWhile } from './ranker/early-features.js';
import { featureContext, type QueryFeatures } from './ranker/features.js';
import { rerankCandidates } from './ranker/rank.js';
import { applyRolePriors, DEFAULT_ROLE_PENALTIES, DEFAULT_ROLE_PRIOR_DEPTH, DEFAULT_SUBJECT_SHARE, rolesForPriors, rolesOf } from './role-priors.js';
import type { SearchMode } from '../config/schema.js';
import type { RankingDefaults, Retriever } from './search-types.js';
import { throwIfAborted } from '../errors/index.js';

/**
 * How many candidates each signal contributes to one ranking. Fixed, so the first results do
 * not depend on how many are asked for (min-max normalisation and the ranker's features are
 * computed over the pool); a request the pool cannot fill is extended by a deeper pool whose
 * new results go after these (search.ts).
 */
export const CANDIDATE_POOL = 200;
/** The deepest pool a request extends to (per signal). */
export const MAX_POOL = 10_000;

/**
 * The vector signal contributes half the pool (100 of 200). On the commit sets of five
 * repositories Recall@10 is as high or higher than with 200 vector candidates, CoSQA's MRR@10
 * 0.002 lower, a quarter cost CoSQA 0.007 (docs/quality.md); and at 100k chunks a ranked
 * search takes ~0.9 ms less (the graph search is narrower, fewer candidates to fuse).
 */
export function vectorShare(limit: number): number {
  return Math.max(10, Math.ceil(limit / 2));
}

export interface PoolQuery {
  query: string;
  mode: SearchMode;
  files: boolean;
  explain: boolean;
  useRanker: boolean;
  /** Query terms after language hints (lexical signal and ranker). */
  terms: string[];
  /** Query text after language hints (vector signal and ranker). */
  text: string;
  languages: string[];
  /** The query's embedding (absent: no vector signal). */
  vector: Float32Array | undefined;
  named: NameQuery | undefined;
  filter: SearchFilter | undefined;
  signal?: AbortSignal;
}

export interface PoolSources {
  store: Store;
  retriever: Pick<Retriever, 'lexical' | 'vector' | 'termStatistics' | 'vectorOffThread' | 'takeVectorReplies'>;
  defaults: RankingDefaults;
}

export interface RankedPool {
  /** Candidates best first, scores never rising. */
  ranked: FusionCandidate[];
  /** Chunk records fetched while ranking (the ranker's window, named definitions). */
  records: Map<number, ChunkRecord>;
  explanations: Map<number, RankingExplanation>;
  roles: Map<string, FileRole>;
  /** Whether a signal returned as many rows as it was asked for: a deeper pool may hold more. */
  full: boolean;
  /** Whether the vector signal took part. */
  vectorRan: boolean;
}

/** One ranking of `limit` candidates per signal: retrieve, fuse, learned ranker, role priors, definitions first (hybrid). */
export async function rankPool(sources: PoolSources, query: PoolQuery, limit: number): Promise<RankedPool> {
  const { mode } = query;
  // The vector search starts first: its graph walk may run on another thread while BM25 scores here.
  const vectorSearch = mode !== 'lexical' && query.vector ? sources.retriever.vector(query.vector, vectorShare(limit), query.filter, { beside: mode !== 'vector' }) : undefined;
  let vectorOut = vectorSearch === undefined;
  vectorSearch?.then(
    () => (vectorOut = true),
    () => (vectorOut = true), // awaited below; not unhandled if the lexical search throws first
  );
  const lexicalRows = mode !== 'vector' ? await sources.retriever.lexical(query.terms, limit, query.filter) : [];
  // The ranker was fitted on hybrid candidates; a single-signal mode keeps that signal's order.
  const ranker = mode === 'hybrid' && query.useRanker ? loadRanker(sources.defaults.ranker ?? 'default') : undefined;
  const { termStatistics } = sources.retriever;
  const features: QueryFeatures | undefined =
    ranker && termStatistics
      ? { terms: query.terms, sequence: tokenize(query.text), languages: new Set(query.languages), statistics: await termStatistics.call(sources.retriever, query.terms) }
      : undefined;
  // While the graph walks on its thread, the lexical head's records and text features (most of the ranker's window).
  const prefetch = ranker && features && sources.retriever.vectorOffThread === true && !vectorOut && lexicalRows.length > 0;
  const token = prefetch ? await sources.store.changeToken() : undefined;
  let early = prefetch
    ? await featuresWhile(
        () => !vectorOut,
        lexicalRows.slice(0, ranker.depth).map((row) => row.rowId),
        featureContext(features),
        (rowIds) => sources.store.getChunks(rowIds),
        sources.retriever.takeVectorReplies?.bind(sources.retriever),
      )
    : undefined;
  // A reply the graph thread sent while BM25 scored is taken now, not after a turn of the event loop.
  if (!vectorOut) sources.retriever.takeVectorReplies?.call(sources.retriever);
  const vectorRows = vectorSearch ? await vectorSearch : [];
  // A write meanwhile may have deleted a prefetched row: the window is fetched after fusion instead.
  if (early && early.records.size > 0 && (await sources.store.changeToken()) !== token) early = undefined;
  const mentions = extractMentions(query.query);
  if (query.named) mentions.symbols = [...new Set([...mentions.symbols, ...query.named.keys])];
  const mentionRows =
    mode === 'hybrid' && (mentions.symbols.length > 0 || mentions.paths.length > 0) ? await sources.store.findMentions({ ...mentions, limit, ...(query.filter ? { filter: query.filter } : {}) }) : [];
  let ranked = fuseScores({ lexical: lexicalRows, vector: vectorRows, mention: mentionRows, weights: sources.defaults.weights, method: sources.defaults.fusion });
  let records = new Map<number, ChunkRecord>();
  let explanations = new Map<number, RankingExplanation>();
  if (ranker && features && ranked.length > 0) {
    throwIfAborted(query.signal);
    const out = await rerankCandidates({
      ranker,
      fused: ranked,
      files: query.files,
      explain: query.explain,
      query: features,
      ...(early ? { early } : {}),
      getChunks: (rowIds) => sources.store.getChunks(rowIds),
      getCatalogEntries: (paths) => sources.store.getCatalogEntries(paths),
    });
    ({ records, explanations } = out);
    ranked = out.ranked;
  }
  let roles = new Map<string, FileRole>();
  if (mode === 'hybrid' && ranked.length > 0) {
    // Implementation before its tests and examples, unless the query asks for them.
    const asked = rolesAskedFor(query.query);
    const weights = {
      penalties: sources.defaults.rolePenalties ?? DEFAULT_ROLE_PENALTIES,
      subjectShare: sources.defaults.testSubjectShare ?? DEFAULT_SUBJECT_SHARE,
      depth: sources.defaults.rolePriorDepth ?? DEFAULT_ROLE_PRIOR_DEPTH,
    };
    // A named definition is placed by its file's role wherever it sits: every file's role then.
    roles = query.named ? await rolesOf(sources.store, [...new Set(ranked.map((candidate) => candidate.path))]) : await rolesForPriors(sources.store, ranked, asked, weights, query.files);
    ranked = applyRolePriors(ranked, roles, asked, weights, query.files);
    if (query.named) {
      const unfetched = ranked.filter((candidate) => candidate.signals.mention !== undefined && !records.has(candidate.rowId)).map((candidate) => candidate.rowId);
      for (const record of await sources.store.getChunks(unfetched)) records.set(record.rowId, record);
      ranked = definitionsFirst(ranked, records, roles, query.named);
    }
  }
  const full = lexicalRows.length >= limit || vectorRows.length >= vectorShare(limit) || mentionRows.length >= limit;
  return { ranked, records, explanations, roles, full, vectorRan: vectorRows.length > 0 };
}
