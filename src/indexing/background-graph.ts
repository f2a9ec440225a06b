import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { defaultHnswOptions, type HnswOptions } from '../retrieve/warm/exact-or-graph-vector-index.js';
import { graphBuildStarted } from '../retrieve/warm/graph-builds.js';
import { loadUsearch } from '../retrieve/warm/usearch-graph.js';
import type { Store } from '../store/spec.js';
import type { IndexEvent } from './events.js';
import { compiledModule } from '../package-files.js';

/** What the graph worker is told at its start (structured-cloneable). */
export interface GraphWorkerData {
  storeFile: string;
  embedderId: string;
  dimensions: number;
  graphFile: string;
  hnsw: Pick<HnswOptions, 'connectivity' | 'expansionAdd' | 'expansionSearch'>;
  /** Threads that add the rows left once the run has written its last (default: min(cores, 8)). */
  finishThreads?: number;
}

export type GraphWorkerReply = { type: 'progress'; rows: number } | { type: 'saved'; rows: number } | { type: 'failed'; message: string };

const WORKER_FILE = compiledModule('indexing/graph-worker.js');
/** The worker starts once the store holds this share of the graph threshold: a run that stays small never starts it. */
const START_SHARE = 0.5;

export interface BackgroundGraphOptions {
  store: Store;
  embedderId: string;
  dimensions: number;
  /** Where the graph is saved; the engine reads it from there. */
  graphFile: string | undefined;
  /** Chunks the store holds before the run. */
  chunksBefore: number;
  /** Phase 1 of a progressive run writes chunks before their vectors: the worker would miss them. */
  deferVectors?: boolean;
  /** The graph threshold (default: the engine's, defaultHnswOptions.threshold). */
  threshold?: number;
  /** Threads for the rows left at finish (default: min(cores, 8); tests set more than a small machine has). */
  finishThreads?: number;
}

/**
 * Builds the vector graph while a run writes, on a worker thread (graph-worker.ts), instead of
 * after the run on the thread that indexes: at 100k chunks the graph is about a fifth of the
 * build. Only for a fresh graph (no graph file yet) of a SQLite store, and only once the run
 * has written enough chunks to want one; otherwise `finish` does nothing and the engine builds
 * or updates the graph as before. Not started from TypeScript sources (the unit tests): there
 * is no compiled worker to start.
 */
export class BackgroundGraph {
  private worker: Worker | undefined;
  private chunks: number;
  private failed = false;
  private added = 0;
  private readonly done: Promise<number | undefined>;
  private resolveDone: (rows: number | undefined) => void = () => undefined;

  private constructor(
    private readonly data: GraphWorkerData,
    chunksBefore: number,
    private readonly startAt: number,
  ) {
    this.chunks = chunksBefore;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** A background build for this run, or undefined when the run does not qualify. */
  static forRun(options: BackgroundGraphOptions): BackgroundGraph | undefined {
    const { store, embedderId, dimensions, graphFile } = options;
    if (!graphFile || store.kind !== 'sqlite' || embedderId === 'none' || dimensions <= 0 || options.deferVectors) return undefined;
    if (existsSync(graphFile) || WORKER_FILE.protocol !== 'file:' || !existsSync(fileURLToPath(WORKER_FILE)) || !loadUsearch()) return undefined;
    const hnsw = { connectivity: defaultHnswOptions.connectivity, expansionAdd: defaultHnswOptions.expansionAdd, expansionSearch: defaultHnswOptions.expansionSearch };
    const startAt = (options.threshold ?? defaultHnswOptions.threshold) * START_SHARE;
    const data: GraphWorkerData = { storeFile: store.location, embedderId, dimensions, graphFile, hnsw, ...(options.finishThreads ? { finishThreads: options.finishThreads } : {}) };
    const build = new BackgroundGraph(data, options.chunksBefore, startAt);
    build.maybeStart();
    return build;
  }

  /** Counts the run's written chunks from its events; starts the worker once there are enough. */
  observe(event: IndexEvent): void {
    if (event.type !== 'file-indexed') return;
    this.chunks += event.chunks;
    this.maybeStart();
  }

  /**
   * After the run's last commit: the worker reads the rest, saves the graph file and stops.
   * Resolves to the rows saved, or undefined when no graph was built (never started, or the
   * worker failed: the engine then builds the graph itself, so nothing is lost).
   */
  async finish(): Promise<number | undefined> {
    if (!this.worker) return undefined;
    this.worker.postMessage({ type: 'finish' });
    return this.done;
  }

  /** Rows the worker has added to the graph so far (as it last reported). */
  get rowsAdded(): number {
    return this.added;
  }

  /** Whether the worker was started (the run reached its share of the threshold). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** Stops the worker without saving (a failed or cancelled run). */
  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.resolveDone(undefined);
    await worker?.terminate();
  }

  private maybeStart(): void {
    if (this.worker || this.failed || this.chunks < this.startAt) return;
    const worker = new Worker(WORKER_FILE, { workerData: this.data });
    this.worker = worker;
    // Until it is saved (or given up), this process's warm indexes leave this graph to the worker.
    void this.done.then(graphBuildStarted(this.data.graphFile));
    worker.on('message', (message: GraphWorkerReply) => {
      if (message.type === 'progress') this.added = message.rows;
      else if (message.type === 'saved') this.resolveDone(message.rows);
      else if (message.type === 'failed') this.fail();
    });
    worker.on('error', () => this.fail());
    worker.on('exit', () => this.resolveDone(undefined));
  }

  private fail(): void {
    this.failed = true;
    this.resolveDone(undefined);
  }
}
