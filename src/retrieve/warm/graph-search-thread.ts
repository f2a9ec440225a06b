import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { compiledModule } from '../../package-files.js';
import type { GraphCandidates } from './graph-candidates.js';
import { graphFileKey, type GraphSearchReply, type GraphSearchRequest, type MappedGraphFile } from './mapped-graph-file.js';

const WORKER_FILE = compiledModule('retrieve/warm/graph-search-worker.js');
/** Graph searches an engine answers on its own thread before it starts the worker: one that searches once never starts it. */
const START_AFTER = 1;
/** A reply later than this: that search is answered on the calling thread; after STALLS_TO_STOP such in a row the worker is stopped for good. */
const REPLY_TIMEOUT_MS = 2_000;
const STALLS_TO_STOP = 3;
/** A search queued behind the worker's first mapping (prepare) waits longer: the worker checks (reads) the whole file and maps it first (483 MB at 1M chunks). */
const MAPPING_TIMEOUT_MS = 30_000;
/** Requests in flight at most; past it searches run on the calling thread. */
const MAX_IN_FLIGHT = 16;

interface Pending {
  file: MappedGraphFile;
  resolve(found: GraphCandidates | undefined): void;
}

/**
 * A worker thread that walks a memory-mapped HNSW graph file for the calling thread, so a
 * hybrid search's graph walk and its BM25 scoring run at once on two cores
 * (graph-search-worker.ts). It only ever proposes candidates: the caller scores them exactly,
 * as its own graph search would, and answers on its own thread whenever this one cannot (not
 * started or ready yet, busy, stopped, the file refused or changed).
 */
export class GraphSearchThread {
  private worker: Worker | undefined;
  /** Where the worker's replies arrive: read as events, and at once (receiveMessageOnPort) when a search finds the worker not ready yet. */
  private replies: MessagePort | undefined;
  private ready = false;
  private stopped = false;
  private seen = 0;
  private nextId = 1;
  /** Replies late in a row (a busy calling thread can make one late; a stuck worker makes them all). */
  private stalls = 0;
  private readonly pending = new Map<number, Pending>();
  /** Mapped files the worker refused (each mapping is one object for as long as it lasts). */
  private readonly refused = new WeakSet<MappedGraphFile>();
  /** The file the worker was started to map before anything else (prepare), by graphFileKey. */
  private preparing: string | undefined;
  /** When the last late reply was counted: replies late together (one busy stretch of the worker) count once. */
  private lastStallAt = Number.NEGATIVE_INFINITY;

  private readonly workerFile: URL;
  private readonly startAfter: number;
  private readonly replyTimeoutMs: number;

  constructor(options: { workerFile?: URL; startAfter?: number; replyTimeoutMs?: number } = {}) {
    this.workerFile = options.workerFile ?? WORKER_FILE;
    this.startAfter = options.startAfter ?? START_AFTER;
    this.replyTimeoutMs = options.replyTimeoutMs ?? REPLY_TIMEOUT_MS;
  }

  /** Whether the worker answers requests now. */
  get running(): boolean {
    return this.ready && !this.stopped;
  }

  /**
   * Starts the worker now (unless it runs), mapping `file` before it answers anything: a new
   * process reads its segment and embeds its query on this thread meanwhile, and its first
   * hybrid search finds the graph mapped on the other core. usearch's view visits every node
   * (~60 ms at 100k vectors, 160-380 ms at 1M on the bench machine, docs/benchmarks.md).
   */
  prepare(file: MappedGraphFile | undefined): void {
    if (!file || this.worker || this.stopped) return;
    this.start(file);
    if (this.worker) this.preparing = graphFileKey(file);
  }

  /**
   * The graph's `k` candidates for the unit `vector`, from the worker; undefined (at once) when
   * it cannot answer: search on the calling thread. A search of the file the worker is still
   * mapping for prepare() waits behind that mapping (the calling thread has not mapped it).
   */
  search(file: MappedGraphFile, vector: Float32Array, k: number): Promise<GraphCandidates | undefined> | undefined {
    if (this.stopped) return undefined;
    const worker = this.worker;
    if (!worker) {
      if (++this.seen > this.startAfter) this.start();
      return undefined;
    }
    // A caller that never yields to the event loop between searches (a loop of awaited searches
    // that finish within their microtasks) would never see the ready message as an event.
    if (!this.ready) this.takeReplies();
    const queued = !this.ready && this.preparing !== undefined && this.preparing === graphFileKey(file);
    if ((!this.ready && !queued) || this.pending.size >= MAX_IN_FLIGHT) return undefined;
    if (this.refused.has(file)) return undefined;
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.settle(id)?.resolve(undefined);
          // A burst of searches late behind one long step (a new file checked and mapped) is one stall.
          const now = performance.now();
          if (now - this.lastStallAt < this.replyTimeoutMs / 2) return;
          this.lastStallAt = now;
          if (++this.stalls >= STALLS_TO_STOP) void this.stop();
        },
        queued ? Math.max(this.replyTimeoutMs, MAPPING_TIMEOUT_MS) : this.replyTimeoutMs,
      );
      timer.unref();
      this.pending.set(id, {
        file,
        resolve: (found) => {
          clearTimeout(timer);
          resolve(found);
        },
      });
      // A reply awaited keeps the process alive; an idle worker never does.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, file, vector, k } satisfies GraphSearchRequest);
    });
  }

  /**
   * The caller searches no mapped file now (its graph was read into memory, or it has none):
   * the worker is let go, and the file it mapped with it (a replaced file's disk space stays
   * pinned while mapped). A mapped file asked for later starts a new one, as the first did.
   */
  release(): void {
    const worker = this.worker;
    if (!worker || this.stopped) return;
    this.worker = undefined;
    this.closeReplies();
    this.ready = false;
    this.preparing = undefined;
    this.seen = 0;
    this.stalls = 0;
    for (const pending of this.pending.values()) pending.resolve(undefined);
    this.pending.clear();
    // Its exit is not a failure: the listeners that would stop this thread for good go first.
    worker.removeAllListeners();
    worker.on('error', () => undefined);
    void worker.terminate();
  }

  /** Stops the worker; searches in flight are answered on the calling thread. */
  async close(): Promise<void> {
    await this.stop();
  }

  private start(prepare?: MappedGraphFile): void {
    // Running from the TypeScript sources (the unit tests) there is no compiled worker.
    if (this.workerFile.protocol !== 'file:' || !existsSync(fileURLToPath(this.workerFile))) {
      this.stopped = true;
      return;
    }
    let worker: Worker;
    const { port1: replies, port2 } = new MessageChannel();
    try {
      worker = new Worker(this.workerFile, { workerData: { replies: port2, ...(prepare ? { prepare } : {}) }, transferList: [port2], resourceLimits: { maxOldGenerationSizeMb: 64 } });
    } catch {
      // No thread to be had (a limit on threads): every search runs on the calling thread.
      replies.close();
      port2.close();
      this.stopped = true;
      return;
    }
    this.worker = worker;
    this.replies = replies;
    replies.on('message', (reply: GraphSearchReply) => this.onReply(reply));
    // A listening port would keep the process alive: only a reply awaited does (worker.ref()).
    replies.unref();
    // Answers the worker sent before it failed are taken first (Node drains a worker's own port before 'exit', not this one).
    const failed = (): void => {
      this.takeReplies();
      void this.stop();
    };
    worker.on('error', failed);
    worker.on('exit', failed);
    // An idle worker never keeps the process alive (only a reply awaited refs it: search()).
    worker.unref();
  }

  private onReply(reply: GraphSearchReply): void {
    if (reply.id === undefined) {
      this.ready = true;
      return;
    }
    const pending = this.settle(reply.id);
    if (!pending) return;
    this.stalls = 0;
    if (reply.keys) pending.resolve({ keys: reply.keys, distances: reply.distances });
    else {
      // The file is not the one mapped here (replaced meanwhile) or cannot be mapped: not asked again.
      this.refused.add(pending.file);
      pending.resolve(undefined);
    }
  }

  /** Handles the replies already sent, now, without waiting for the event loop to deliver them (a caller busy between steps calls it: rank-pool.ts). */
  takeReplies(): void {
    const replies = this.replies;
    if (!replies) return;
    for (let received = receiveMessageOnPort(replies); received; received = this.replies === replies ? receiveMessageOnPort(replies) : undefined) {
      this.onReply(received.message as GraphSearchReply);
    }
  }

  private closeReplies(): void {
    this.replies?.removeAllListeners();
    this.replies?.close();
    this.replies = undefined;
  }

  /** Takes request `id` off the list (the worker is let go of when none is left). */
  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    if (!pending) return undefined;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    return pending;
  }

  /** Answers what is in flight with undefined and stops the worker for good. */
  private async stop(): Promise<void> {
    const worker = this.worker;
    this.stopped = true;
    this.ready = false;
    this.preparing = undefined;
    this.worker = undefined;
    this.closeReplies();
    for (const pending of this.pending.values()) pending.resolve(undefined);
    this.pending.clear();
    await worker?.terminate();
  }
}
