import type { ChunkRecord, TermStatistics } from '../../store/spec.js';
import type { FusionCandidate } from '../fusion.js';
import { moduleKey } from '../../chunk/imports.js';
import { termLocator, tokenize, type TermLocations } from '../../lexical/tokenize.js';

/**
 * The ranker's features, in the order a model lists its weights. Every one is computed
 * from the query and one candidate chunk (plus the candidate list it sits in), the same
 * way for every corpus: no feature knows a dataset, a query or an id.
 */
export const featureNames = [
  /** The fused signal score (weighted BM25 + cosine + mentions). */
  'fused',
  /** BM25 score relative to the best BM25 score among the candidates. */
  'lexical',
  /** Cosine similarity of query and chunk vectors (the lowest candidate's when absent). */
  'vector',
  /** Cosine min-max normalised over the candidates. */
  'vectorMinMax',
  /** IDF-weighted share of the query's terms found in the chunk's symbol name. */
  'symbolCoverage',
  /** … in its file path. */
  'pathCoverage',
  /** … in its first doc comment or docstring. */
  'commentCoverage',
  /** Share of the symbol name's words that the query uses (`is_line_in_file` for "check if line in file"). */
  'symbolPrecision',
  /** … in its heading path. */
  'headingCoverage',
  /** … anywhere in the chunk (path, symbol, heading, text). */
  'coverage',
  /** 1 when every query term is somewhere in the chunk. */
  'complete',
  /** Share of adjacent query-term pairs found within 3 tokens of each other in the text. */
  'proximity',
  /** 1 / (1 + rank) by BM25 among the candidates (0 when BM25 did not find it). */
  'lexicalRank',
  /** 1 / (1 + rank) by cosine among the candidates (0 when the vector search did not find it). */
  'vectorRank',
  /** log(1 + tokens in the chunk text). */
  'length',
  /** 1 when the query names the chunk's programming language ("… in python"). */
  'languageMatch',
  /** 1 when the chunk's file imports, or is imported by, one of the 3 best fused files (another one, for those 3). */
  'importNeighbour',
  /** log of how many of the chunk's file's chunks are among the first 100 fused candidates (0 for one or none): evidence spread over a file. */
  'fileHits',
] as const;

export type FeatureName = (typeof featureNames)[number];
/** Each feature's slot in a feature vector. */
export const FEATURE = Object.fromEntries(featureNames.map((name, slot) => [name, slot])) as Readonly<Record<FeatureName, number>>;
export type FeatureVector = Float64Array;

export interface QueryFeatures {
  /** Unique query terms (after language hints), for coverage. */
  terms: readonly string[];
  /** Query tokens in order, for proximity. */
  sequence: readonly string[];
  /** Languages the query named. */
  languages: ReadonlySet<string>;
  statistics: TermStatistics;
  /** The modules each candidate file imports (chunk/imports.ts); absent files import nothing known. */
  imports?: ReadonlyMap<string, readonly string[]>;
  /** How many chunks of each file are among the first FILE_HITS_DEPTH fused candidates. */
  fileHits?: ReadonlyMap<string, number>;
}

/** Text beyond this is not read for features (long chunks cost time, add little). */
const MAX_FEATURE_TEXT = 2000;
/** A chunk's first docstring, block comment or run of line comments, near its start. */
const FIRST_COMMENT = /("""|''')([\s\S]*?)\1|\/\*([\s\S]*?)\*\/|((?:^[ \t]*(?:#|\/\/)[^\n]*(?:\n|$))+)/m;
const COMMENT_SEARCH = 2000;
const PROXIMITY_WINDOW = 3;
const EMPTY: ReadonlyMap<string, number[]> = new Map();
/** Files whose import neighbours count: the best few of the fused list. */
const IMPORT_HUBS = 3;
/** How deep in the fused list a file's chunks count towards `fileHits`. */
export const FILE_HITS_DEPTH = 100;

export function inverseDocumentFrequency(statistics: TermStatistics, term: string): number {
  const hits = statistics.frequencies.get(term) ?? 0;
  const idf = Math.log((statistics.chunks - hits + 0.5) / (hits + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/** What the features need from the query alone: computed once per query. */
export interface FeatureContext {
  /** Each query term's IDF, in the terms' order (coverages are summed in it). */
  idf: ReadonlyMap<string, number>;
  totalIdf: number;
  queryTerms: ReadonlySet<string>;
  locate: (text: string) => TermLocations;
  /** Adjacent distinct query-term pairs, for proximity. */
  pairs: ReadonlyArray<readonly [string, string]>;
}

export function featureContext(query: Pick<QueryFeatures, 'terms' | 'sequence' | 'statistics'>): FeatureContext {
  const idf = new Map(query.terms.map((term) => [term, inverseDocumentFrequency(query.statistics, term)]));
  let totalIdf = 0;
  for (const value of idf.values()) totalIdf += value;
  const queryTerms = new Set(query.terms);
  const pairs: Array<[string, string]> = [];
  for (let index = 0; index + 1 < query.sequence.length; index++) {
    const first = query.sequence[index] as string;
    const second = query.sequence[index + 1] as string;
    if (first !== second) pairs.push([first, second]);
  }
  return { idf, totalIdf, queryTerms, locate: termLocator(queryTerms), pairs };
}

/**
 * The features read from one chunk's own fields: the same whatever list it sits in, so they
 * can be computed before the list is known (rank-pool.ts, while the vector search runs).
 */
export interface TextFeatures {
  symbolCoverage: number;
  pathCoverage: number;
  commentCoverage: number;
  headingCoverage: number;
  coverage: number;
  proximity: number;
  symbolPrecision: number;
  length: number;
}

export function textFeatures(context: FeatureContext, record: ChunkRecord): TextFeatures {
  const { idf, totalIdf, locate, pairs } = context;
  // Only which query terms each field holds matters: the locator skips the rest cheaply.
  const symbol = record.symbol ? locate(record.symbol).positions : EMPTY;
  const path = locate(record.path).positions;
  const heading = record.headingPath.length > 0 ? locate(record.headingPath.join(' ')).positions : EMPTY;
  const body = locate(record.text.length > MAX_FEATURE_TEXT ? record.text.slice(0, MAX_FEATURE_TEXT) : record.text);
  const positions = body.positions;
  const comment = firstComment(record.text);
  const commentTokens = comment ? locate(comment).positions : EMPTY;
  const nameWords = symbolWords(record.symbol);
  // IDF-weighted coverage of the query's terms by each field, summed in the terms' order.
  let symbolSum = 0;
  let pathSum = 0;
  let commentSum = 0;
  let headingSum = 0;
  let anywhereSum = 0;
  for (const [term, weight] of idf) {
    const inSymbol = symbol.has(term);
    const inPath = path.has(term);
    const inHeading = heading.has(term);
    if (inSymbol) symbolSum += weight;
    if (inPath) pathSum += weight;
    if (commentTokens.has(term)) commentSum += weight;
    if (inHeading) headingSum += weight;
    if (positions.has(term) || inSymbol || inPath || inHeading) anywhereSum += weight;
  }
  const share = (sum: number): number => (totalIdf > 0 ? sum / totalIdf : 0);
  let near = 0;
  for (const [first, second] of pairs) {
    const a = positions.get(first);
    const b = positions.get(second);
    if (a && b && a.some((x) => b.some((y) => Math.abs(y - x) <= PROXIMITY_WINDOW))) near++;
  }
  return {
    symbolCoverage: share(symbolSum),
    pathCoverage: share(pathSum),
    commentCoverage: share(commentSum),
    headingCoverage: share(headingSum),
    coverage: share(anywhereSum),
    proximity: pairs.length > 0 ? near / pairs.length : 0,
    symbolPrecision: nameWords.length > 0 ? nameWords.filter((word) => context.queryTerms.has(word)).length / nameWords.length : 0,
    length: Math.log(1 + body.length),
  };
}

/**
 * One feature vector per candidate, in candidate order. `early` holds text features already
 * computed for some rows with the same context (by row id); the rest are computed here.
 */
export function computeFeatures(
  query: QueryFeatures,
  candidates: ReadonlyArray<{ candidate: FusionCandidate; record: ChunkRecord }>,
  early?: { context: FeatureContext; text: ReadonlyMap<number, TextFeatures> },
): FeatureVector[] {
  const context = early?.context ?? featureContext(query);
  const lexicalScores = candidates.map(({ candidate }) => candidate.signals.lexical);
  const vectorScores = candidates.map(({ candidate }) => candidate.signals.vector);
  const maxLexical = Math.max(1e-9, ...lexicalScores.map((score) => score ?? 0));
  const presentVectors = vectorScores.filter((score): score is number => score !== undefined);
  const minVector = presentVectors.length > 0 ? Math.min(...presentVectors) : 0;
  const maxVector = presentVectors.length > 0 ? Math.max(...presentVectors) : 0;
  const lexicalRank = ranks(lexicalScores);
  const vectorRank = ranks(vectorScores);
  const neighbours = importNeighbours(
    candidates.map(({ record }) => record.path),
    query.imports,
  );

  return candidates.map(({ candidate, record }, index) => {
    const text = early?.text.get(candidate.rowId) ?? textFeatures(context, record);
    const vector = candidate.signals.vector ?? minVector;
    // In featureNames' order, the one a model's weights are read in (rank.test.ts reads features by name).
    const values = new Float64Array(featureNames.length);
    values[FEATURE.fused] = candidate.score;
    values[FEATURE.lexical] = (candidate.signals.lexical ?? 0) / maxLexical;
    values[FEATURE.vector] = vector;
    values[FEATURE.vectorMinMax] = maxVector > minVector ? (vector - minVector) / (maxVector - minVector) : 0;
    values[FEATURE.symbolCoverage] = text.symbolCoverage;
    values[FEATURE.pathCoverage] = text.pathCoverage;
    values[FEATURE.commentCoverage] = text.commentCoverage;
    values[FEATURE.symbolPrecision] = text.symbolPrecision;
    values[FEATURE.headingCoverage] = text.headingCoverage;
    values[FEATURE.coverage] = text.coverage;
    values[FEATURE.complete] = query.terms.length > 0 && text.coverage > 0.999 ? 1 : 0;
    values[FEATURE.proximity] = text.proximity;
    values[FEATURE.lexicalRank] = lexicalRank[index] as number;
    values[FEATURE.vectorRank] = vectorRank[index] as number;
    values[FEATURE.length] = text.length;
    values[FEATURE.languageMatch] = query.languages.has(record.language) ? 1 : 0;
    values[FEATURE.importNeighbour] = neighbours.has(record.path) ? 1 : 0;
    values[FEATURE.fileHits] = Math.log(Math.max(1, query.fileHits?.get(record.path) ?? 0));
    return values;
  });
}

/** Files that import one of the hubs or that a hub imports (a hub counts the other hubs). */
function importNeighbours(paths: readonly string[], imports: ReadonlyMap<string, readonly string[]> | undefined): Set<string> {
  const out = new Set<string>();
  if (!imports || imports.size === 0) return out;
  const hubs = [...new Set(paths)].slice(0, IMPORT_HUBS);
  for (const path of new Set(paths)) {
    const key = moduleKey(path);
    const mine = (imports.get(path) ?? []).map(moduleKey);
    for (const hub of hubs) {
      if (hub === path) continue;
      if (mine.includes(moduleKey(hub)) || (imports.get(hub) ?? []).some((target) => moduleKey(target) === key)) {
        out.add(path);
        break;
      }
    }
  }
  return out;
}

function firstComment(text: string): string | undefined {
  const head = text.length > COMMENT_SEARCH ? text.slice(0, COMMENT_SEARCH) : text;
  // Every form it matches holds `#`, `/`, `"""` or `'''`: prose without them skips the expression.
  if (!head.includes('#') && !head.includes('/') && !head.includes('"""') && !head.includes("'''")) return undefined;
  const match = FIRST_COMMENT.exec(head);
  return match ? (match[2] ?? match[3] ?? match[4]) : undefined;
}

/** The words of a symbol's name, as query terms would spell them (the whole identifier aside). */
function symbolWords(symbol: string | undefined): string[] {
  if (!symbol) return [];
  const words: string[] = [];
  for (const name of symbol.split(/[^\p{L}\p{N}_]+/u)) {
    const tokens = tokenize(name);
    // A multi-part name gives its whole self first (when short enough), then its parts.
    const whole = tokens.length > 1 && tokens[0] === name.replaceAll('_', '').toLowerCase();
    words.push(...(whole ? tokens.slice(1) : tokens));
  }
  return words;
}

/** 1 / (1 + rank) of each present score among the candidates; 0 where absent. */
function ranks(scores: ReadonlyArray<number | undefined>): number[] {
  const order = scores
    .map((score, index) => ({ score, index }))
    .filter((entry): entry is { score: number; index: number } => entry.score !== undefined)
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const out = new Array<number>(scores.length).fill(0);
  order.forEach((entry, rank) => (out[entry.index] = 1 / (1 + rank)));
  return out;
}
