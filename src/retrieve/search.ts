import type { SearchMode } from '../config/schema.js';
import { embedQuery } from '../embed/embed-query.js';
import type { EmbeddingModel } from '../embed/spec.js';
import { isProviderFailure, LociError, throwIfAborted } from '../errors/index.js';
import type { ChunkRecord, LexicalWeights, SelfRankingStore, Store } from '../store/spec.js';
import { compileFilter } from '../store/filter-match.js';
import { buildFilter } from './build-filter.js';
import { bestDefined, definitionLine, nameQuery } from './definitions.js';
import { checkLanguageNames } from './language-aliases.js';
import { parseRoles, pathsWithRoles } from './role-filter.js';
import { rolesOf } from './role-priors.js';
import { rescoredCandidate, type FusionCandidate } from './fusion.js';
import { CANDIDATE_POOL, MAX_POOL, rankPool, type PoolQuery, type PoolSources } from './rank-pool.js';
import type { RankingDefaults, Retriever, SearchOptions, SearchResponse, SearchResult } from './search-types.js';

export type { Retriever } from './search-types.js';
import { languageHints } from './ranker/query-language.js';
import { checkQuerySize, checkQueryTerms } from './query-limits.js';
import { queryTerms, tokenize } from '../lexical/tokenize.js';

/** Searches a store that ranks lexical matches itself (Postgres), without loading an index. */
export function storeRetriever(store: Store & SelfRankingStore, embedderId: string, weights: LexicalWeights): Retriever {
  return {
    path: () => ({ index: 'store', lexical: store.lexicalRanking, vectors: embedderId === 'none' ? 'none' : 'exact' }),
    lexical: (terms, limit, filter) => store.searchLexical({ terms, weights, limit, ...(filter ? { filter } : {}) }),
    vector: (vector, limit, filter) => store.searchVectors({ embedderId, vector, limit, ...(filter ? { filter } : {}) }),
    termStatistics: (terms) => store.termStatistics(terms),
    languages: () => store.languages(),
  };
}

export interface SearchContext {
  store: Store;
  /** The indexed folder: absolute path filters inside it are made relative. */
  root?: string;
  retriever: Retriever;
  /** The model the index's vectors come from; undefined for lexical-only indexes, lexical searches, or when it could not be set up. */
  model: EmbeddingModel | undefined;
  /** Why `model` is missing although the index has vectors (the provider failed): hybrid searches go on lexically and say so. */
  modelUnavailable?: LociError;
  embedderId: string;
  defaults: RankingDefaults & { topK: number; mode: SearchMode; threshold: number };
}

/** Retrieves candidates from each signal, fuses them, groups by file if asked. */
export async function searchIndex(context: SearchContext, query: string, options: SearchOptions = {}): Promise<SearchResponse> {
  if (typeof query !== 'string' || query.trim() === '') {
    throw new LociError('QUERY_EMPTY', 'The search query is empty.');
  }
  checkQuerySize(query);
  const topK = options.topK ?? context.defaults.topK;
  if (!Number.isInteger(topK) || topK < 1) throw new LociError('INVALID_ARGUMENT', `topK must be a positive integer, got ${topK}.`);
  const mode = options.mode ?? context.defaults.mode;
  const threshold = options.threshold ?? context.defaults.threshold;
  let filter = buildFilter({
    ...(context.root ? { root: context.root } : {}),
    ...(options.paths ? { paths: options.paths } : {}),
    ...(options.languages ? { languages: options.languages } : {}),
    ...(options.pathPrefixes ? { pathPrefixes: options.pathPrefixes } : {}),
  });
  const includeRoles = parseRoles(options.roles, 'role');
  const excludeRoles = parseRoles(options.excludeRoles, 'excluded role');
  if (includeRoles || excludeRoles) filter = { ...filter, pathSet: await pathsWithRoles(context.store, includeRoles, excludeRoles) };
  if (options.languages && options.languages.length > 0) checkLanguageNames(options.languages, context.retriever.languages ? [...(await context.retriever.languages()).keys()] : []);
  const warnings: string[] = [];
  const degradedParts: Array<'vector' | 'lexical'> = [];
  const { retriever } = context;
  // A language the query names ("… in python") prefers that language's code instead of
  // matching chunks that mention the word.
  // (Hybrid only: `--mode lexical|vector` stay exactly that one signal over the query as typed.)
  const terms = queryTerms(query);
  checkQueryTerms(terms);
  const hints = mode === 'hybrid' ? languageHints(query, terms, retriever.languages ? await retriever.languages() : new Map()) : { terms, languages: [], text: query };
  if (mode !== 'vector' && hints.terms.length === 0) warnings.push('The query has no searchable words after dropping stop words and punctuation.');
  let queryVector: Float32Array | undefined;
  if (mode !== 'lexical') {
    if (!context.model) {
      if (mode === 'vector') {
        if (context.modelUnavailable) throw context.modelUnavailable;
        throw new LociError('NOT_SUPPORTED', 'This index has no vectors (it was built with --embedder none), so --mode vector cannot run.', {
          hint: 'Use --mode lexical, or re-index with an embedder: loci index --embedder <id>.',
        });
      }
      warnings.push(context.modelUnavailable ? withoutVectors(context.modelUnavailable) : 'No vectors in this index (embedder none): results use lexical signals only.');
      degradedParts.push('vector');
    } else {
      throwIfAborted(options.signal);
      try {
        queryVector = await embedQuery(context.model, hints.text, options.signal, mode !== 'vector');
      } catch (error) {
        // Degrade, never lose: a hybrid search answers lexically when the embedder fails, and says so.
        if (mode === 'vector' || !isProviderFailure(error)) throw error;
        warnings.push(withoutVectors(error));
        degradedParts.push('vector');
      }
    }
  }
  // A query that is only a name (`nextTick`, `use-model`) looks the name up as a symbol too.
  const named = mode === 'hybrid' && context.defaults.definitionsFirst !== false ? nameQuery(query) : undefined;
  const poolQuery: PoolQuery = {
    query,
    mode,
    files: options.files === true,
    explain: options.explain === true,
    useRanker: options.ranker !== false,
    terms: hints.terms,
    text: hints.text,
    languages: hints.languages,
    vector: queryVector,
    named,
    filter,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const sources: PoolSources = { store: context.store, retriever, defaults: context.defaults };
  const minSimilarity = queryVector ? options.minSimilarity : undefined;
  if (options.minSimilarity !== undefined && minSimilarity === undefined) {
    warnings.push(`minSimilarity ${options.minSimilarity} was not applied: ${mode === 'lexical' ? 'lexical mode computes no cosine similarity' : 'this index has no vectors'}.`);
  }

  // Threshold, file grouping and top-k are decided before any more chunk text is fetched.
  const chosen: FusionCandidate[] = [];
  const seenPaths = new Set<string>();
  const seenRows = new Set<number>();
  // Set once a shown score falls below the threshold: scores never rise down the list, and a
  // deeper pool's results go below it, so nothing after can pass (and a result the threshold
  // dropped never comes back from a deeper pool with that pool's score).
  let belowThreshold = false;
  const take = (ranked: FusionCandidate[], ceiling: number) => {
    for (const candidate of ranked) {
      if (chosen.length >= topK) break;
      if (seenRows.has(candidate.rowId) || (options.files && seenPaths.has(candidate.path))) continue;
      // A deeper pool's results go below the ones already chosen, scores capped so they never rise.
      const shown = candidate.score > ceiling ? rescoredCandidate(candidate, ceiling) : candidate;
      if (shown.score < threshold) {
        belowThreshold = true; // the displayed score: what people see is what they filter on
        break;
      }
      if (minSimilarity !== undefined && (candidate.signals.vector === undefined || candidate.signals.vector < minSimilarity)) continue;
      seenPaths.add(candidate.path);
      seenRows.add(candidate.rowId);
      chosen.push(shown);
    }
  };
  let limit = context.defaults.candidatePool ?? CANDIDATE_POOL;
  let pool = await rankPool(sources, poolQuery, limit);
  take(pool.ranked, Number.POSITIVE_INFINITY);
  const fetched = pool.records;
  const explanations = pool.explanations;
  const roles = pool.roles;
  // The first results never depend on topK: a request the pool cannot fill is extended by
  // deeper pools, whose new results follow.
  while (chosen.length < topK && pool.full && !belowThreshold && limit < MAX_POOL) {
    limit = Math.min(MAX_POOL, Math.max(limit * 4, options.files ? topK * 10 : topK * 3));
    pool = await rankPool(sources, poolQuery, limit);
    take(pool.ranked, chosen.length > 0 ? (chosen[chosen.length - 1] as FusionCandidate).score : Number.POSITIVE_INFINITY);
    for (const [rowId, record] of pool.records) fetched.set(rowId, record);
    for (const [rowId, explanation] of pool.explanations) if (!explanations.has(rowId)) explanations.set(rowId, explanation);
    for (const [path, role] of pool.roles) roles.set(path, role);
  }
  const missing = chosen.filter((candidate) => !fetched.has(candidate.rowId)).map((candidate) => candidate.rowId);
  const records = new Map([...fetched, ...(await context.store.getChunks(missing)).map((record) => [record.rowId, record] as const)]);
  const unknownRoles = [...new Set(chosen.map((candidate) => candidate.path))].filter((path) => !roles.has(path));
  if (unknownRoles.length > 0) for (const [path, role] of await rolesOf(context.store, unknownRoles)) roles.set(path, role);
  const results: SearchResult[] = [];
  const asked = new Set(terms);
  for (const candidate of chosen) {
    const record = records.get(candidate.rowId);
    if (!record) continue; // a row deleted since ranking is dropped
    const result = toResult(record, candidate, options.explain === true);
    const role = roles.get(record.path);
    if (role) result.role = role;
    if (named) {
      // Show the symbol the query named when this chunk defines it, not just its first one; the
      // query's own spelling first (`reactive`, not `Reactive`, when the chunk defines both).
      const defined = bestDefined(record.symbols, named);
      if (defined) {
        result.symbol = defined;
        const line = definitionLine(record, defined);
        if (line !== undefined) result.line = line;
      }
    } else {
      // A chunk that defines several symbols is labelled with the one whose words the query holds most, not always its first.
      const label = symbolForQuery(record, asked);
      if (label !== undefined) result.symbol = label;
    }
    const ranking = explanations.get(candidate.rowId);
    if (ranking) result.ranking = ranking;
    results.push(result);
  }
  if (mode !== 'lexical' && retriever.warnings) warnings.push(...retriever.warnings());
  // Nothing found with a filter: say when no indexed file passes it at all (a typo in a path or a language the index lacks), not just "no results".
  if (results.length === 0 && (options.paths?.length || options.pathPrefixes?.length || options.languages?.length || includeRoles || excludeRoles)) {
    const accept = compileFilter(filter);
    if (accept && !(await context.store.listCatalog()).some((entry) => accept(entry.path, entry.language))) {
      warnings.push('No indexed file matches the filter (paths, languages or roles): loci status lists what the index holds.');
    }
  }
  return { query, mode, results, retrieval: retriever.path(), warnings, degraded: degradedParts.length > 0, degradedParts };
}

function toResult(record: ChunkRecord, candidate: FusionCandidate, explain: boolean): SearchResult {
  const result = resultOfRecord(record, candidate.score, candidate.signals);
  if (explain) result.explanation = candidate.contributions;
  if (explain && candidate.adjustments) result.adjustments = candidate.adjustments;
  return result;
}

/**
 * The chunk's symbol whose words hold more of the query's terms than its own (first) symbol's
 * do: a chunk of two functions, the second one asked about. Undefined: its own.
 */
function symbolForQuery(record: ChunkRecord, terms: ReadonlySet<string>): string | undefined {
  if (record.symbols.length < 2 || terms.size === 0) return undefined;
  const held = (symbol: string): number => {
    let count = 0;
    for (const token of new Set(tokenize(symbol))) if (terms.has(token)) count++;
    return count;
  };
  let best: string | undefined;
  let most = record.symbol ? held(record.symbol) : 0;
  for (const symbol of record.symbols) {
    if (symbol === record.symbol) continue; // counted above
    const count = held(symbol);
    if (count > most) {
      best = symbol;
      most = count;
    }
  }
  return best;
}

/** A stored chunk as a search result with the given score (no explanation). */
export function resultOfRecord(record: ChunkRecord, score: number, signals: SearchResult['signals']): SearchResult {
  const result: SearchResult = {
    path: record.path,
    startLine: record.startLine,
    endLine: record.endLine,
    language: record.language,
    kind: record.kind,
    headingPath: record.headingPath,
    text: record.text,
    score,
    signals,
    chunkId: record.chunkId,
  };
  if (record.symbol) result.symbol = record.symbol;
  if (record.symbols.length > 0) result.symbols = record.symbols;
  return result;
}

function withoutVectors(error: LociError): string {
  return `The embedder failed, so the vector signal was skipped and results use lexical signals only: ${error.message}`;
}
