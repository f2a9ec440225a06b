import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LociConfigInput, SearchMode } from '../config/schema.js';
import { createLoci, type Loci } from '../engine/create-loci.js';
import type { EmbeddingModel } from '../embed/spec.js';
import { LociError, throwIfAborted } from '../errors/index.js';
import type { IndexProgressListener } from '../indexing/events.js';
import { loadCorpus, loadQrels, loadQueries, type BeirDocument, type BeirQuery } from './load-beir.js';
import type { MemoryInput } from '../memory/spec.js';
import { parseTime } from '../memory/parse-time.js';
import { meanMetrics, scoreRanking, type QueryMetrics } from './metrics.js';

export interface RunEvalOptions {
  datasetDir: string;
  split?: string;
  mode?: SearchMode;
  target?: 'knowledge' | 'memory';
  /** Restrict each query to documents whose metadata[field] equals the query's. */
  namespaceField?: string;
  /** Index this folder as a repository; qrels corpus ids are then relative file paths. */
  corpusDir?: string;
  embedder?: string | EmbeddingModel;
  config?: LociConfigInput;
  env?: Record<string, string | undefined>;
  /** Where the temporary store goes (default: the OS temp folder). */
  workDir?: string;
  signal?: AbortSignal;
  onIndexProgress?: IndexProgressListener;
  onQuery?: (done: number, total: number) => void;
}

export type CategoryMetrics = QueryMetrics & { queries: number };

export interface EvalReport {
  dataset: string;
  split: string;
  mode: SearchMode;
  target: 'knowledge' | 'memory';
  embedder: string;
  queries: number;
  metrics: QueryMetrics;
  categories?: Record<string, CategoryMetrics>;
  /** Queries in the qrels that were missing from queries.jsonl. */
  missingQueries: number;
  indexSeconds: number;
  querySeconds: number;
}

const RANK_DEPTH = 100;

/** Indexes a BEIR dataset into a temporary store with the real pipeline and scores rankings. */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const datasetDir = resolve(options.datasetDir);
  const split = options.split ?? 'dev';
  const target = options.target ?? 'knowledge';
  if (target === 'memory' && options.corpusDir) {
    throw new LociError('INVALID_ARGUMENT', '--target memory reads the dataset corpus as memory records; it cannot be combined with --corpus-dir.');
  }
  const [queries, qrels] = await Promise.all([loadQueries(datasetDir), loadQrels(datasetDir, split)]);
  const judgedQueries = queries.filter((query) => [...(qrels.get(query.id)?.values() ?? [])].some((grade) => grade > 0));
  const missingQueries = [...qrels.keys()].filter((id) => !queries.some((query) => query.id === id)).length;
  if (judgedQueries.length === 0) throw new LociError('DATASET_INVALID', `No query in queries.jsonl has a positive judgment in qrels/${split}.tsv.`);

  const workDir = await mkdtemp(join(options.workDir ?? tmpdir(), 'loci-eval-'));
  let loci: Loci | undefined;
  try {
    const indexStarted = performance.now();
    const namespaceOf = options.namespaceField ? namespaceReader(options.namespaceField) : undefined;
    let toCorpusId: (path: string) => string = (path) => path;
    let rank: (query: BeirQuery) => Promise<string[]>;
    if (target === 'memory') {
      loci = createLoci(engineOptions(options, workDir, join(workDir, 'store')));
      rank = await memoryRanker(loci, await loadCorpus(datasetDir), namespaceOf, options);
    } else {
      if (options.corpusDir) {
        loci = createLoci(engineOptions(options, resolve(options.corpusDir), join(workDir, 'store')));
        await loci.index({ ...(options.signal ? { signal: options.signal } : {}), ...(options.onIndexProgress ? { onProgress: options.onIndexProgress } : {}) });
      } else {
        const documents = await loadCorpus(datasetDir);
        loci = createLoci(engineOptions(options, workDir, join(workDir, 'store')));
        const prefixOf = new Map<string, string>();
        const indexable = documents.map((document) => {
          const prefix = namespaceOf ? `${namespaceOf(document, 'document')}/` : '';
          const path = `${prefix}${document.id}`;
          prefixOf.set(path, prefix);
          return { id: path, text: document.text, ...(document.title ? { title: document.title } : {}) };
        });
        toCorpusId = (path) => path.slice(prefixOf.get(path)?.length ?? 0);
        await loci.indexDocuments(indexable, {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onIndexProgress ? { onProgress: options.onIndexProgress } : {}),
        });
      }
      const engine = loci;
      const hasVectors = (await engine.status({ checkChanges: false })).embedder !== 'none';
      rank = async (query) => {
        const response = await engine.search(query.text.trim() === '' ? '(empty)' : query.text, {
          topK: RANK_DEPTH,
          files: true,
          ...(options.mode ? { mode: options.mode } : {}),
          ...(namespaceOf ? { pathPrefixes: [`${namespaceOf(query, 'query')}/`] } : {}),
        });
        if (hasVectors && response.degraded) refuseDegraded(response.warnings);
        return response.results.map((result) => toCorpusId(result.path));
      };
    }
    const indexSeconds = (performance.now() - indexStarted) / 1000;

    const queryStarted = performance.now();
    const perQuery: Array<{ query: BeirQuery; metrics: QueryMetrics }> = [];
    for (const query of judgedQueries) {
      throwIfAborted(options.signal);
      perQuery.push({ query, metrics: scoreRanking(await rank(query), qrels.get(query.id) ?? new Map()) });
      options.onQuery?.(perQuery.length, judgedQueries.length);
    }
    const querySeconds = (performance.now() - queryStarted) / 1000;
    const embedder = target === 'memory' ? (await loci.memory()).records.embedderId : (await loci.status({ checkChanges: false })).embedder;
    const report: EvalReport = {
      dataset: datasetDir,
      split,
      mode: options.mode ?? (target === 'memory' ? 'hybrid' : loci.config.search.mode),
      target,
      embedder,
      queries: perQuery.length,
      metrics: meanMetrics(perQuery.map((entry) => entry.metrics)),
      missingQueries,
      indexSeconds: round(indexSeconds),
      querySeconds: round(querySeconds),
    };
    const categories = byCategory(perQuery);
    if (categories) report.categories = categories;
    return report;
  } finally {
    await loci?.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Loads the corpus as memory records (one per document, in the namespace named by the
 * namespace field, timed by metadata such as LoCoMo's session_date_time) and ranks by recall.
 */
async function memoryRanker(
  loci: Loci,
  documents: BeirDocument[],
  namespaceOf: ((record: BeirDocument | BeirQuery, kind: 'document' | 'query') => string) | undefined,
  options: RunEvalOptions,
): Promise<(query: BeirQuery) => Promise<string[]>> {
  const memory = await loci.memory();
  const inputs: MemoryInput[] = documents.map((document, index) => {
    const time = parseTime(document.metadata.session_date_time ?? document.metadata.time ?? document.metadata.date) ?? index;
    const text = document.title ? `${document.title}\n${document.text}` : document.text;
    return { namespace: namespaceOf ? namespaceOf(document, 'document') : 'eval', id: document.id.replace(/[/\s]+/g, '_'), kind: 'note', text: text.trim() === '' ? '(empty)' : text, time };
  });
  const idOf = new Map(documents.map((document, index) => [(inputs[index] as MemoryInput).id as string, document.id]));
  const written = await memory.addMany(inputs, { dedupe: false, ...(options.signal ? { signal: options.signal } : {}) });
  const unembedded = written.find((record) => record.warnings?.length);
  if (unembedded) refuseDegraded(unembedded.warnings ?? []);
  // Recency is pinned to the newest record, so the dataset scores the same on any day.
  const now = inputs.reduce((latest, input) => Math.max(latest, input.time ?? 0), 0);
  return async (query) => {
    const { hits, degraded, warnings } = await memory.recallResponse(query.text.trim() === '' ? '(empty)' : query.text, {
      topK: RANK_DEPTH,
      now,
      ...(options.mode ? { mode: options.mode } : {}),
      ...(namespaceOf ? { namespaces: [namespaceOf(query, 'query')] } : {}),
    });
    if (degraded) refuseDegraded(warnings);
    return hits.map((hit) => idOf.get(hit.record.id) ?? hit.record.id);
  };
}

/** Scores from a degraded run (an embedder that failed mid-eval) would pass for the configuration's own: refused. */
function refuseDegraded(warnings: readonly string[]): never {
  throw new LociError('EMBEDDER_FAILED', `The evaluation stopped: a provider failed and the results were degraded (${warnings.join(' ')}).`, {
    hint: 'Fix the embedder (see the message) and run the evaluation again; degraded scores are never reported.',
  });
}

function engineOptions(options: RunEvalOptions, root: string, store: string) {
  return {
    root,
    store,
    ...(options.config ? { config: options.config } : {}),
    ...(options.embedder ? { embedder: options.embedder } : {}),
    ...(options.env ? { env: options.env } : {}),
  };
}

function namespaceReader(field: string) {
  return (record: BeirDocument | BeirQuery, kind: 'document' | 'query'): string => {
    const value = record.metadata[field];
    if (value === undefined || value === null || value === '') {
      throw new LociError('DATASET_INVALID', `The ${kind} ${record.id} has no metadata.${field}, which --namespace-field needs.`);
    }
    return String(value);
  };
}

function byCategory(perQuery: Array<{ query: BeirQuery; metrics: QueryMetrics }>): Record<string, CategoryMetrics> | undefined {
  const groups = new Map<string, QueryMetrics[]>();
  for (const { query, metrics } of perQuery) {
    const category = query.metadata.category;
    if (category === undefined || category === null) continue;
    const key = String(category);
    const list = groups.get(key) ?? [];
    list.push(metrics);
    groups.set(key, list);
  }
  if (groups.size === 0) return undefined;
  const out: Record<string, CategoryMetrics> = {};
  for (const key of [...groups.keys()].sort()) {
    const list = groups.get(key) as QueryMetrics[];
    out[key] = { ...meanMetrics(list), queries: list.length };
  }
  return out;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
