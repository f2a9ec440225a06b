import type { SearchMode } from '../config/schema.js';
import { embedMany } from '../embed/embed-many.js';
import type { EmbeddingModel } from '../embed/spec.js';
import { LociError, throwIfAborted } from '../errors/index.js';
import type { ChunkRecord, LexicalWeights, ScoredRow, SearchFilter, Store, TermStatistics } from '../store/spec.js';
import { buildFilter } from './build-filter.js';
import { fuseScores, type FusionCandidate, type FusionMethod, type FusionWeights } from './fusion.js';
import { extractMentions } from './mentions.js';
import type { SearchOptions, SearchResponse, SearchResult } from './search-types.js';
import { languageHints } from './rerank/query-language.js';
import { loadRanker, type RankingExplanation } from './rerank/ranker.js';
import { rerankCandidates } from './rerank/rerank.js';
import { checkQuerySize, checkQueryTerms } from './query-limits.js';
import { queryTerms, tokenize } from './tokenize.js';

/** Where candidates come from: the store's own indexes, or a warm in-memory index. */
export interface Retriever {
  lexical(terms: string[], limit: number, filter: SearchFilter | undefined): Promise<ScoredRow[]>;
  vector(vector: Float32Array, limit: number, filter: SearchFilter | undefined): Promise<ScoredRow[]>;
  /** Document frequencies for the ranker's IDF (absent: no learned ranking). */
  termStatistics?(terms: string[]): Promise<TermStatistics>;
  /** The index's languages, for language names in queries (absent: none are hints). */
  languages?(): Promise<string[]>;
}

export function storeRetriever(store: Store, embedderId: string, weights: LexicalWeights): Retriever {
  return {
    lexical: (terms, limit, filter) => store.searchLexical({ terms, weights, limit, ...(filter ? { filter } : {}) }),
    vector: (vector, limit, filter) => store.searchVectors({ embedderId, vector, limit, ...(filter ? { filter } : {}) }),
    termStatistics: (terms) => store.termStatistics(terms),
    languages: () => store.languages(),
  };
}

export interface SearchContext {
  store: Store;
  retriever: Retriever;
  /** The model the index's vectors come from; undefined for lexical-only indexes. */
  model: EmbeddingModel | undefined;
  embedderId: string;
  defaults: { topK: number; mode: SearchMode; threshold: number; weights: FusionWeights; fusion: FusionMethod; ranker?: string };
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
  const filter = buildFilter({
    ...(options.paths ? { paths: options.paths } : {}),
    ...(options.languages ? { languages: options.languages } : {}),
    ...(options.pathPrefixes ? { pathPrefixes: options.pathPrefixes } : {}),
  });
  const warnings: string[] = [];
  const degraded: Array<'vector' | 'lexical'> = [];
  // Files mode groups chunks, so it needs a deeper pool to fill topK distinct files.
  const candidateLimit = Math.max(options.files ? topK * 10 : topK * 3, 50);

  const { retriever } = context;
  // A language the query names ("… in python") prefers that language's code instead of
  // matching chunks that mention the word.
  // (Hybrid only: `--mode lexical|vector` stay exactly that one signal over the query as typed.)
  const terms = queryTerms(query);
  checkQueryTerms(terms);
  const hints =
    mode === 'hybrid' ? languageHints(query, terms, new Set(retriever.languages ? await retriever.languages() : [])) : { terms, languages: [], text: query };
  let lexicalRows: ScoredRow[] = [];
  let vectorRows: ScoredRow[] = [];
  if (mode !== 'vector') {
    if (hints.terms.length === 0) warnings.push('The query has no searchable words after dropping stop words and punctuation.');
    lexicalRows = await retriever.lexical(hints.terms, candidateLimit, filter);
  }
  if (mode !== 'lexical') {
    if (!context.model) {
      if (mode === 'vector') {
        throw new LociError('NOT_SUPPORTED', 'This index has no vectors (it was built with --embedder none), so --mode vector cannot run.', {
          hint: 'Use --mode lexical, or re-index with an embedder: loci index --embedder <id>.',
        });
      }
      degraded.push('vector');
    } else {
      throwIfAborted(options.signal);
      const { embeddings } = await embedMany({ model: context.model, values: [hints.text], purpose: 'query', ...(options.signal ? { abortSignal: options.signal } : {}) });
      vectorRows = await retriever.vector(embeddings[0] as Float32Array, candidateLimit, filter);
    }
  }

  const mentions = extractMentions(query);
  const mentionRows =
    mode === 'hybrid' && (mentions.symbols.length > 0 || mentions.paths.length > 0)
      ? await context.store.findMentions({ ...mentions, limit: candidateLimit, ...(filter ? { filter } : {}) })
      : [];
  let fused = fuseScores({ lexical: lexicalRows, vector: vectorRows, mention: mentionRows, weights: context.defaults.weights, method: context.defaults.fusion });
  let fetched = new Map<number, ChunkRecord>();
  let explanations = new Map<number, RankingExplanation>();
  // The ranker was fitted on hybrid candidates; a single-signal mode keeps that signal's order.
  const ranker = mode === 'hybrid' && options.ranker !== false ? loadRanker(context.defaults.ranker ?? 'default') : undefined;
  if (ranker && retriever.termStatistics && fused.length > 0) {
    throwIfAborted(options.signal);
    const out = await rerankCandidates({
      ranker,
      fused,
      files: options.files === true,
      explain: options.explain === true,
      query: { terms: hints.terms, sequence: tokenize(hints.text), languages: new Set(hints.languages), statistics: await retriever.termStatistics(hints.terms) },
      getChunks: (rowIds) => context.store.getChunks(rowIds),
      getCatalogEntries: (paths) => context.store.getCatalogEntries(paths),
    });
    ({ records: fetched, explanations } = out);
    fused = out.ranked;
  }
  // Threshold, file grouping and top-k are decided before any more chunk text is fetched.
  const chosen: FusionCandidate[] = [];
  const seenPaths = new Set<string>();
  for (const candidate of fused) {
    if (chosen.length >= topK) break;
    if ((candidate.fusedScore ?? candidate.score) < threshold) continue; // the ranker may lift a weak fused score above a strong one
    if (options.files) {
      if (seenPaths.has(candidate.path)) continue;
      seenPaths.add(candidate.path);
    }
    chosen.push(candidate);
  }
  const missing = chosen.filter((candidate) => !fetched.has(candidate.rowId)).map((candidate) => candidate.rowId);
  const records = new Map([...fetched, ...(await context.store.getChunks(missing)).map((record) => [record.rowId, record] as const)]);
  const results: SearchResult[] = [];
  for (const candidate of chosen) {
    const record = records.get(candidate.rowId);
    if (!record) continue; // a row deleted since ranking is dropped
    const result = toResult(record, candidate, options.explain === true);
    const ranking = explanations.get(candidate.rowId);
    if (ranking) result.ranking = ranking;
    results.push(result);
  }
  return { query, mode, results, warnings, degraded };
}

function toResult(record: ChunkRecord, candidate: FusionCandidate, explain: boolean): SearchResult {
  const result: SearchResult = {
    path: record.path,
    startLine: record.startLine,
    endLine: record.endLine,
    language: record.language,
    kind: record.kind,
    headingPath: record.headingPath,
    text: record.text,
    score: candidate.score,
    signals: candidate.signals,
    chunkId: record.chunkId,
  };
  if (record.symbol) result.symbol = record.symbol;
  if (explain) result.explanation = candidate.contributions;
  return result;
}
