import { embedQuery } from '../embed/embed-query.js';
import type { EmbeddingModel } from '../embed/spec.js';
import { isProviderFailure, LociError, throwIfAborted } from '../errors/index.js';
import type { Retriever } from '../retrieve/search.js';
import { checkQuerySize, checkQueryTerms } from '../retrieve/query-limits.js';
import { queryTerms, termLocator } from '../lexical/tokenize.js';
import type { ScoredRow, SearchFilter } from '../store/spec.js';
import { namespacePrefix } from './namespace.js';
import { inWindow, temporalReferences } from './temporal.js';
import type { MemoryHit, MemoryRecord, MemorySignal, RecallOptions } from './spec.js';

export interface MemoryWeights {
  lexical: number;
  vector: number;
  recency: number;
  temporal: number;
  outcome: number;
  /** Hybrid only, not knowledge: × log(1 + the record's tokens), a prior for records that say more. */
  length: number;
  /** Hybrid only, not knowledge: × the best relevance of another record of the same session (see sessionSignals). */
  session: number;
  /** Hybrid only, not knowledge: × log(1 + records of the session among the first SESSION_DEPTH by relevance). */
  sessionHits: number;
}

export interface RecallContext {
  /** Records by path (the store's catalog, possibly through a cache). */
  lookup(paths: string[]): Promise<Map<string, MemoryRecord>>;
  retriever: Retriever;
  model: EmbeddingModel | undefined;
  /** Why `model` is missing although an embedder was asked for: hybrid recall is lexical and says so. */
  modelUnavailable?: LociError;
  weights: MemoryWeights;
  recencyHalfLifeMs: number;
}

/** Recall's hits, and what the caller should know: a signal that could not run (no hidden switches). */
export interface RecallResult {
  hits: MemoryHit[];
  warnings: string[];
  /** Signals asked for that could not run (the embedder failed): recall went on without them. */
  degraded: boolean;
  degradedParts: Array<'vector'>;
}

const CANDIDATES = 100;
/** Records of one namespace written within this long of each other form a session. */
const SESSION_WINDOW_MS = 60 * 60 * 1000;
/** Session evidence is read from this many of the most relevant candidates. */
const SESSION_HEADS = 50;
/** … and counted among this many. */
const SESSION_DEPTH = 20;
/** Counts a text's tokens (as the index makes them) without making them. */
const countTokens = termLocator(new Set());
/** Token counts of parsed records; the record store reuses a record object until a write. */
const tokenCounts = new WeakMap<MemoryRecord, number>();

function tokensOf(record: MemoryRecord): number {
  let count = tokenCounts.get(record);
  if (count === undefined) {
    count = countTokens(record.text).length;
    tokenCounts.set(record, count);
  }
  return count;
}

/**
 * Hybrid recall: BM25 and vector candidates inside the requested namespaces (filtered
 * before ranking), grouped per record, then min-max normalised and combined with a
 * recency decay, named times, outcomes and (hybrid, outside knowledge) the record's length
 * and session. Kind, outcome, time and expiry filters apply before the top-k cut.
 */
export async function recall(context: RecallContext, query: string, options: RecallOptions = {}): Promise<RecallResult> {
  if (typeof query !== 'string' || query.trim() === '') throw new LociError('QUERY_EMPTY', 'The recall query is empty.');
  checkQuerySize(query, 'recall query');
  checkQueryTerms(queryTerms(query), 'recall query');
  const topK = options.topK ?? 5;
  const mode = options.mode ?? 'hybrid';
  const filter: SearchFilter = {};
  if (options.namespaces && options.namespaces.length > 0) filter.pathPrefixes = options.namespaces.map(namespacePrefix);
  if (options.kinds && options.kinds.length > 0) filter.languages = [...options.kinds];
  const pool = Math.max(CANDIDATES, topK * 10);

  const warnings: string[] = [];
  const degradedParts: Array<'vector'> = [];
  const vectorOnly = mode === 'vector' || mode === 'cosine';
  // The query's embedding (a remote embedder answers over the network) and the vector search
  // it leads to start first; the lexical search runs meanwhile.
  let vectorSearch: Promise<ScoredRow[]> | undefined;
  // Stops the embedding when the caller aborts or the lexical search fails (its error is the answer).
  const embedding = new AbortController();
  const stopEmbedding = () => embedding.abort(options.signal?.reason);
  if (mode !== 'lexical' && context.model) {
    throwIfAborted(options.signal);
    options.signal?.addEventListener('abort', stopEmbedding, { once: true });
    const model = context.model;
    vectorSearch = (async () => {
      return context.retriever.vector(await embedQuery(model, query, embedding.signal, !vectorOnly), pool, filter, { beside: mode === 'hybrid' });
    })().finally(() => options.signal?.removeEventListener('abort', stopEmbedding));
    // A lexical failure meanwhile is the one reported; this one is read below otherwise.
    vectorSearch.catch(() => undefined);
  } else if (mode !== 'lexical' && context.modelUnavailable) {
    if (vectorOnly) throw context.modelUnavailable;
    warnings.push(`The embedder could not be set up, so recall used lexical signals only: ${context.modelUnavailable.message}`);
    degradedParts.push('vector');
  } else if (vectorOnly) {
    throw new LociError('NOT_SUPPORTED', `This memory has no vectors (embedder none), so ${mode} recall cannot run.`, { hint: 'Use mode lexical or hybrid.' });
  }
  let lexical: ScoredRow[] = [];
  try {
    if (mode === 'hybrid' || mode === 'lexical') lexical = await context.retriever.lexical(queryTerms(query), pool, filter);
  } catch (error) {
    stopEmbedding();
    throw error;
  }
  throwIfAborted(options.signal);
  let vector: ScoredRow[] = [];
  if (vectorSearch) {
    try {
      vector = await vectorSearch;
    } catch (error) {
      // Degrade, never lose: hybrid recall answers lexically when the embedder fails, and says so.
      if (vectorOnly || !isProviderFailure(error)) throw error;
      warnings.push(`The embedder failed, so recall skipped the vector signal and used lexical signals only: ${error.message}`);
      degradedParts.push('vector');
      if (options.minSimilarity !== undefined) warnings.push('minSimilarity needs vectors: no record could be checked against it.');
    }
  }

  const best = (rows: ScoredRow[]) => {
    const byPath = new Map<string, number>();
    for (const row of rows) if (!byPath.has(row.path) || (byPath.get(row.path) as number) < row.score) byPath.set(row.path, row.score);
    return byPath;
  };
  const lexicalByPath = best(lexical);
  const vectorByPath = best(vector);
  const paths = [...new Set([...lexicalByPath.keys(), ...vectorByPath.keys()])];
  const records = await context.lookup(paths);
  const now = options.now ?? Date.now();
  const normalizeLexical = minMax([...lexicalByPath.values()]);
  const normalizeVector = minMax([...vectorByPath.values()]);
  const times = context.weights.temporal > 0 ? temporalReferences(query, now) : [];
  const single = lexical.length === 0 || vector.length === 0;
  const candidates: Candidate[] = [];
  for (const path of paths) {
    const record = records.get(path);
    if (!record || !passes(record, options, now)) continue;
    const lexicalScore = lexicalByPath.get(path);
    const vectorScore = vectorByPath.get(path);
    if (options.minSimilarity !== undefined && (vectorScore === undefined || vectorScore < options.minSimilarity)) continue;
    const relevance = single
      ? lexical.length > 0
        ? (lexicalScore ?? 0)
        : (vectorScore ?? 0)
      : context.weights.lexical * normalizeLexical(lexicalScore) + context.weights.vector * normalizeVector(vectorScore);
    candidates.push({ record, lexicalScore, vectorScore, relevance, session: 0, sessionHits: 0 });
  }
  // Conversation evidence clusters: a record whose session holds other strong records is
  // more likely the one asked about (fitted on LoCoMo's tune half, see docs/quality.md).
  if (!single && (context.weights.session > 0 || context.weights.sessionHits > 0)) sessionSignals(candidates);
  const hits: MemoryHit[] = [];
  const weights = context.weights;
  for (const { record, lexicalScore, vectorScore, session, sessionHits } of candidates) {
    // Every part of the score, in the order it is summed: score = Σ weight × normalized.
    const parts: Array<[MemorySignal, number, number, number]> = [];
    if (mode === 'cosine') {
      // The Go agent's order: cosine similarity and nothing else.
      hits.push(cosineHit(record, vectorScore ?? 0, options.explain === true));
      continue;
    }
    if (single) {
      if (lexical.length > 0) parts.push(['lexical', lexicalScore ?? 0, lexicalScore ?? 0, 1]);
      else parts.push(['vector', vectorScore ?? 0, vectorScore ?? 0, 1]);
    } else {
      if (lexicalScore !== undefined) parts.push(['lexical', lexicalScore, normalizeLexical(lexicalScore), weights.lexical]);
      if (vectorScore !== undefined) parts.push(['vector', vectorScore, normalizeVector(vectorScore), weights.vector]);
    }
    const recency = 2 ** (-Math.max(0, now - record.time) / context.recencyHalfLifeMs);
    parts.push(['recency', recency, recency, weights.recency]);
    const temporal = times.some((reference) => inWindow(record.time, reference.window));
    if (temporal) parts.push(['temporal', 1, 1, weights.temporal]);
    const outcome = outcomeSign(record);
    if (outcome !== 0) parts.push(['outcome', outcome, outcome, weights.outcome]);
    // Fitted on conversations; knowledge sections (documents loaded in bulk) keep relevance alone.
    if (!single && record.kind !== 'knowledge') {
      const length = weights.length > 0 ? tokensOf(record) : 0;
      if (length > 0) parts.push(['length', length, Math.log(1 + length), weights.length]);
      if (session > 0) parts.push(['session', session, session, weights.session]);
      if (sessionHits > 0) parts.push(['sessionHits', sessionHits, Math.log(1 + sessionHits), weights.sessionHits]);
    }
    let score = 0;
    for (const [, , normalized, weight] of parts) score += weight * normalized;
    if (options.minScore !== undefined && score < options.minScore) continue;
    const signals: MemoryHit['signals'] = {};
    for (const [signal, raw] of parts) if (signal !== 'lexical' && signal !== 'vector') signals[signal] = raw;
    if (lexicalScore !== undefined) signals.lexical = lexicalScore;
    if (vectorScore !== undefined) signals.vector = vectorScore;
    const hit: MemoryHit = { record, score, signals };
    if (options.explain) hit.explanation = Object.fromEntries(parts.map(([signal, raw, normalized, weight]) => [signal, { raw, normalized, weight, contribution: weight * normalized }]));
    hits.push(hit);
  }
  hits.sort((a, b) => b.score - a.score || b.record.time - a.record.time);
  return { hits: (mode === 'cosine' ? hits : preferNewer(hits)).slice(0, topK), warnings, degraded: degradedParts.length > 0, degradedParts };
}

function cosineHit(record: MemoryRecord, cosine: number, explain: boolean): MemoryHit {
  const hit: MemoryHit = { record, score: cosine, signals: { vector: cosine } };
  if (explain) hit.explanation = { vector: { raw: cosine, normalized: cosine, weight: 1, contribution: cosine } };
  return hit;
}

/**
 * A record added as contradicting a near-identical older one (MemoryRecord.conflictsWith)
 * is placed right above it when both were found, so the current fact comes first whatever
 * the scores say. Touches only linked pairs; bounded by the number of links.
 */
function preferNewer(hits: MemoryHit[]): MemoryHit[] {
  const linked = hits.filter((hit) => hit.record.conflictsWith && hit.record.conflictsWith.length > 0);
  if (linked.length === 0) return hits;
  const key = (namespace: string, id: string) => `${namespace}/#${id}`;
  const byKey = new Map(hits.map((hit) => [key(hit.record.namespace, hit.record.id), hit]));
  const newer = (a: MemoryRecord, b: MemoryRecord) => a.time > b.time || (a.time === b.time && a.updatedAt > b.updatedAt);
  const pairs: Array<[MemoryHit, MemoryHit]> = [];
  for (const hit of linked) {
    for (const id of hit.record.conflictsWith ?? []) {
      const other = byKey.get(key(hit.record.namespace, id));
      if (!other || other === hit) continue;
      pairs.push(newer(hit.record, other.record) ? [hit, other] : [other, hit]);
    }
  }
  // Oldest pairs first, so a chain (5432 → 6543 → 7654) ends with the newest on top.
  pairs.sort((a, b) => a[0].record.time - b[0].record.time);
  const order = [...hits];
  for (const [winner, loser] of pairs) {
    winner.signals.supersedes = 1;
    const at = order.indexOf(winner);
    const below = order.indexOf(loser);
    if (at < below) continue;
    order.splice(at, 1);
    order.splice(below, 0, winner);
  }
  return order;
}

interface Candidate {
  record: MemoryRecord;
  lexicalScore: number | undefined;
  vectorScore: number | undefined;
  /** Lexical and vector evidence combined (min-max normalised in hybrid recall). */
  relevance: number;
  /** The best relevance of another record of the same session among the heads (0 when none). */
  session: number;
  /** Records of the same session among the first SESSION_DEPTH by relevance, itself included. */
  sessionHits: number;
}

/**
 * Session evidence for each candidate: records of the same namespace written within
 * SESSION_WINDOW_MS of each other belong to one session (a conversation's turns, an agent's
 * burst of notes). Knowledge sections are loaded in bulk, not written in sessions: skipped.
 */
function sessionSignals(candidates: Candidate[]): void {
  const heads = [...candidates].sort((a, b) => b.relevance - a.relevance || b.record.time - a.record.time).slice(0, SESSION_HEADS);
  const together = (a: MemoryRecord, b: MemoryRecord) => a.namespace === b.namespace && Math.abs(a.time - b.time) <= SESSION_WINDOW_MS;
  for (const candidate of candidates) {
    if (candidate.record.kind === 'knowledge') continue;
    heads.forEach((head, rank) => {
      if (head.record.kind === 'knowledge' || !together(head.record, candidate.record)) return;
      if (rank < SESSION_DEPTH) candidate.sessionHits++;
      if (head !== candidate && head.relevance > candidate.session) candidate.session = head.relevance;
    });
  }
}

/** +1 for a successful interaction, −1 for one that failed, 0 otherwise. */
function outcomeSign(record: MemoryRecord): number {
  if (record.kind !== 'interaction') return 0;
  const outcome = (record.fields as { outcome?: string } | undefined)?.outcome;
  return outcome === 'success' ? 1 : outcome === 'error' ? -1 : 0;
}

function passes(record: MemoryRecord, options: RecallOptions, now: number): boolean {
  if (record.expiresAt !== undefined && record.expiresAt <= now) return false;
  if (options.since !== undefined && record.time < options.since) return false;
  if (options.until !== undefined && record.time > options.until) return false;
  if (options.outcome) {
    const outcome = record.kind === 'interaction' ? (record.fields as { outcome?: string } | undefined)?.outcome : undefined;
    if (outcome !== options.outcome) return false;
  }
  return true;
}

/** Missing scores normalise to 0; a single distinct score to 1. */
function minMax(values: number[]): (value: number | undefined) => number {
  if (values.length === 0) return () => 0;
  const low = Math.min(...values);
  const high = Math.max(...values);
  return (value) => (value === undefined ? 0 : high > low ? (value - low) / (high - low) : 1);
}
