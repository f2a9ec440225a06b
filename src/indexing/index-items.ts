import type { FileRole } from '../sources/file-role.js';
import { encodeFileAttributes } from '../store/file-attributes.js';
import type { ChunkInput } from '../chunk/spec.js';
import type { EmbeddingModel } from '../embed/spec.js';
import { throwIfAborted } from '../errors/index.js';
import type { ReadResult, SkipCounts, SkipReason } from '../sources/spec.js';
import type { CatalogEntry, Store } from '../store/spec.js';
import { embedChunks } from './embed-chunks.js';
import type { IndexProgressListener } from './events.js';
import { sha256Hex } from '../sources/content-hash.js';
import type { PreparedChunk } from './prepare-chunks.js';
import type { PrepareFileInput, PreparedFile } from './prepare-file.js';
import { inProcessPreparer, workerPreparer, type Preparer } from './preparer.js';

/** One thing to index: a file on disk or an in-memory document. */
export interface IndexItem {
  path: string;
  language: string;
  size: number;
  mtimeMs: number;
  title?: string;
  previous?: CatalogEntry;
  load(): Promise<ReadResult>;
}

export interface IndexItemsContext {
  store: Store;
  model: EmbeddingModel | undefined;
  embedderId: string;
  chunker: string;
  chunking: Pick<ChunkInput, 'tokenBudget' | 'windowLines' | 'windowOverlap'>;
  pathIsContent: boolean;
  /**
   * Progressive phase 1: write chunks and lexical rows now, vectors only where the cache
   * already has them; files left without vectors are marked `pending` and embedded by the
   * next (phase 2) run, which sees their embedder differ.
   */
  deferVectors?: boolean;
  signal?: AbortSignal;
  onProgress?: IndexProgressListener;
  /**
   * Chunk and tokenize big runs (PREPARE_WORKER_MIN_ITEMS items or more) on a worker thread
   * while this thread embeds and writes (default true; false keeps everything on this thread).
   */
  prepareInWorker?: boolean;
  /** Progress position: items already done before this call, and the run's total. */
  progress: { done: number; total: number };
}

export interface IndexItemsTally {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  chunksWritten: number;
  embeddingsComputed: number;
  embeddingsCached: number;
  skipped: Partial<SkipCounts>;
  warnings: string[];
  /** Files cut into line windows because their structure could not be used (a few examples kept). */
  fallbacks: { count: number; examples: string[] };
  /** Files skipped because reading or chunking them failed, with the reason (a few examples kept). */
  failures: { count: number; examples: string[] };
}

const EXAMPLES_KEPT = 5;

interface PendingFile {
  item: IndexItem;
  contentHash: string;
  chunks: PreparedChunk[];
  /** Modules the file imports (chunk/imports.ts), kept in the catalog for ranking. */
  imports: string[];
  /** What the file is for (sources/file-role.ts), kept in the catalog for ranking and filters. */
  role: FileRole;
  /** Set when the file was cut into line windows instead of by its structure. */
  fallback?: string;
}

function note(list: { count: number; examples: string[] }, example: string): void {
  list.count++;
  if (list.examples.length < EXAMPLES_KEPT) list.examples.push(example);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Files are embedded and committed in groups: remote embedders get full batches, and one
// transaction per group instead of per file. The first group is small, so a run shows its
// first results at once; each next one may be twice as big, up to MAX_GROUP_CHUNKS, but
// closes once it has been filling for GROUP_MS. A commit's cost grows far slower than its
// size (pages of the indexes that random hashes and paths land on are written once per
// commit, not once per file): at 30k chunks, groups of up to 2,048 instead of 128 cut
// the time spent in SQLite by half.
const FIRST_GROUP_CHUNKS = 128;
const FIRST_GROUP_FILES = 64;
const MAX_GROUP_CHUNKS = 2048;
const MAX_GROUP_FILES = 1024;
const GROUP_MS = 1000;

/** When to close the group in flight: by size (doubling per group up to the cap) or by age. */
export function createGroupPolicy(now: () => number = () => performance.now()): { full(chunks: number, files: number): boolean; closed(): void } {
  let chunkLimit = FIRST_GROUP_CHUNKS;
  let fileLimit = FIRST_GROUP_FILES;
  let opened = now();
  return {
    full: (chunks, files) => chunks >= chunkLimit || files >= fileLimit || (files > 0 && now() - opened >= GROUP_MS),
    closed() {
      chunkLimit = Math.min(MAX_GROUP_CHUNKS, chunkLimit * 2);
      fileLimit = Math.min(MAX_GROUP_FILES, fileLimit * 2);
      opened = now();
    },
  };
}

const READ_AHEAD = 16;
/** Runs this big use the prepare worker; below, its start-up (grammars loaded again) costs more than it saves. */
export const PREPARE_WORKER_MIN_ITEMS = 256;
/**
 * With the prepare worker, files are read and handed to it this far ahead (in files and in
 * bytes), so it has the next group to work on while this thread writes the current one.
 */
const PREPARE_AHEAD = 1024;
const PREPARE_AHEAD_BYTES = 32 * 1024 * 1024;

/**
 * Starts the work for up to `ahead` items beyond the one being awaited, and no more than
 * `budget` of their sizes at once (always at least the awaited one); each result is awaited once.
 */
function prefetch<T, R>(items: readonly T[], load: (item: T) => Promise<R>, ahead: number, size: (item: T) => number = () => 0, budget = Number.POSITIVE_INFINITY): (index: number) => Promise<R> {
  const started = new Map<number, Promise<R>>();
  let next = 0;
  let inFlight = 0;
  const start = (index: number) => {
    const promise = load(items[index] as T);
    promise.catch(() => undefined); // observed when awaited; avoids an unhandled rejection meanwhile
    started.set(index, promise);
    inFlight += size(items[index] as T);
  };
  return (index: number) => {
    while (next < items.length && next <= index + ahead && (next <= index || inFlight < budget)) start(next++);
    const promise = started.get(index) as Promise<R>;
    started.delete(index);
    inFlight -= size(items[index] as T);
    return promise;
  };
}

/** An item read and hashed, and (with the prepare worker) already being prepared. */
type Staged =
  | { kind: 'unreadable'; message: string }
  | { kind: 'skip'; reason: SkipReason }
  | { kind: 'unchanged' }
  | { kind: 'changed'; loaded: Extract<ReadResult, { ok: true }>; contentHash: string; prepared?: Promise<PreparedFile> };

export function emptyTally(): IndexItemsTally {
  return {
    added: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    chunksWritten: 0,
    embeddingsComputed: 0,
    embeddingsCached: 0,
    skipped: {},
    warnings: [],
    fallbacks: { count: 0, examples: [] },
    failures: { count: 0, examples: [] },
  };
}

/**
 * Gives the event loop a turn once `budgetMs` of work has passed without one, so searches
 * and requests in the same process are served between files, not after the whole run.
 */
export function createYielder(budgetMs = 10): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    last = performance.now();
  };
}

/** The catalog's embedder for a file written without (all of) its vectors yet. */
export const PENDING_EMBEDDER = 'pending';

/** Reads, hashes, chunks, embeds and writes items; a crash loses at most the group in flight. */
export async function indexItems(items: readonly IndexItem[], context: IndexItemsContext, tally: IndexItemsTally): Promise<void> {
  let pending: PendingFile[] = [];
  let pendingChunks = 0;
  const yieldTurn = createYielder();
  const groups = createGroupPolicy();
  const flush = async () => {
    await writePending(pending, context, tally, yieldTurn);
    pending = [];
    pendingChunks = 0;
    groups.closed();
  };
  const skipItem = async (item: IndexItem, reason: SkipReason, message?: string) => {
    tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
    if (reason === 'chunk-error') note(tally.failures, `${item.path}: ${message ?? 'failed'}`);
    if (item.previous) {
      await context.store.deleteFile(item.path);
      tally.removed++;
    }
    context.progress.done++;
    context.onProgress?.({ type: 'file-skipped', path: item.path, reason, done: context.progress.done, total: context.progress.total, ...(message ? { message } : {}) });
  };
  const worker = context.prepareInWorker !== false && items.length >= PREPARE_WORKER_MIN_ITEMS ? workerPreparer() : undefined;
  const preparer: Preparer = worker ?? inProcessPreparer();
  const isUnchanged = (item: IndexItem, contentHash: string) => {
    const previous = item.previous;
    // Phase 1 leaves a file that is only waiting for its vectors as it is: phase 2 attaches them.
    const current = previous?.embedder === context.embedderId || (context.deferVectors === true && previous?.embedder === PENDING_EMBEDDER);
    return previous !== undefined && previous.contentHash === contentHash && previous.chunker === context.chunker && current;
  };
  const prepareInput = (item: IndexItem, text: string) => ({
    path: item.path,
    text,
    language: item.language,
    chunking: context.chunking,
    pathIsContent: context.pathIsContent,
    ...(item.title ? { title: item.title } : {}),
  });
  // Reads (and, with the worker, preparation) run ahead of writing, so the disk, the worker
  // and this thread work at the same time.
  const stage = async (item: IndexItem): Promise<Staged> => {
    let loaded: ReadResult;
    try {
      loaded = await item.load();
    } catch (error) {
      return { kind: 'unreadable', message: messageOf(error) }; // a read that threw, not one that said why
    }
    if (!loaded.ok) return { kind: 'skip', reason: loaded.reason };
    const contentHash = sha256Hex(loaded.bytes);
    if (isUnchanged(item, contentHash)) return { kind: 'unchanged' };
    const prepared = preparer.parallel ? preparer.prepare(prepareInput(item, loaded.text)) : undefined;
    prepared?.catch(() => undefined); // observed when its turn comes
    return { kind: 'changed', loaded, contentHash, ...(prepared ? { prepared } : {}) };
  };
  const staged = preparer.parallel ? prefetch(items, stage, PREPARE_AHEAD, (item) => item.size, PREPARE_AHEAD_BYTES) : prefetch(items, stage, READ_AHEAD);
  let bulk = false;
  try {
    if (items.length >= PREPARE_WORKER_MIN_ITEMS && context.store.bulkWrites) {
      await context.store.bulkWrites(true);
      bulk = true;
    }
    await indexStaged(items, staged, context, tally, {
      skipItem,
      flush,
      add: (file, chunks) => {
        pending.push(file);
        pendingChunks += chunks;
        return groups.full(pendingChunks, pending.length);
      },
      prepareInput,
      prepare: (input) => preparer.prepare(input),
    });
    await flush();
  } finally {
    try {
      await worker?.close();
    } finally {
      // A failure here only leaves the log to its usual checkpoints; the run's own error wins.
      if (bulk) await context.store.bulkWrites?.(false).catch(() => undefined);
    }
  }
}

interface LoopHelpers {
  skipItem(item: IndexItem, reason: SkipReason, message?: string): Promise<void>;
  flush(): Promise<void>;
  /** Adds a prepared file to the group in flight; true when the group is full. */
  add(file: PendingFile, chunks: number): boolean;
  prepareInput(item: IndexItem, text: string): PrepareFileInput;
  /** Prepares a file the staging step did not hand to the preparer already. */
  prepare(input: PrepareFileInput): Promise<PreparedFile>;
}

/** The items in order: skipped, unchanged (touched), or prepared and added to the group in flight. */
async function indexStaged(items: readonly IndexItem[], staged: (index: number) => Promise<Staged>, context: IndexItemsContext, tally: IndexItemsTally, helpers: LoopHelpers): Promise<void> {
  const yieldTurn = createYielder();
  for (const [index, item] of items.entries()) {
    await yieldTurn();
    throwIfAborted(context.signal);
    const next = await staged(index);
    if (next.kind === 'unreadable') {
      await helpers.skipItem(item, 'unreadable', next.message);
      continue;
    }
    if (next.kind === 'skip') {
      await helpers.skipItem(item, next.reason);
      continue;
    }
    if (next.kind === 'unchanged') {
      await context.store.touchFile(item.path, item.size, item.mtimeMs);
      tally.unchanged++;
      context.progress.done++;
      context.onProgress?.({ type: 'file-unchanged', path: item.path, done: context.progress.done, total: context.progress.total });
      continue;
    }
    // Whatever one file's content does to the chunker, the run goes on without that file.
    let prepared: PreparedFile;
    try {
      prepared = await (next.prepared ?? helpers.prepare(helpers.prepareInput(item, next.loaded.text)));
    } catch (error) {
      await helpers.skipItem(item, 'chunk-error', messageOf(error));
      continue;
    }
    const file: PendingFile = { item, contentHash: next.contentHash, ...prepared };
    if (file.fallback) note(tally.fallbacks, `${item.path} (${file.fallback})`);
    if (helpers.add(file, file.chunks.length)) await helpers.flush();
  }
}

async function writePending(pending: PendingFile[], context: IndexItemsContext, tally: IndexItemsTally, yieldTurn: () => Promise<void>): Promise<void> {
  if (pending.length === 0) return;
  const incomplete = new Set<PendingFile>();
  if (context.model && context.deferVectors) {
    const chunks = pending.flatMap((file) => file.chunks);
    const cached = await context.store.getCachedVectors(context.embedderId, [...new Set(chunks.map((chunk) => chunk.write.contentHash))]);
    for (const file of pending) {
      for (const chunk of file.chunks) {
        const vector = cached.get(chunk.write.contentHash);
        if (vector) chunk.write.vector = vector;
        else incomplete.add(file);
      }
    }
    tally.embeddingsCached += cached.size;
  } else if (context.model) {
    const result = await embedChunks(
      pending.flatMap((file) => file.chunks),
      context.model,
      context.store,
      context.signal,
    );
    tally.embeddingsComputed += result.computed;
    tally.embeddingsCached += result.cached;
    for (const warning of result.warnings) if (!tally.warnings.includes(warning)) tally.warnings.push(warning);
  }
  await yieldTurn();
  // Every file in flight was read, chunked and embedded; a cancel lands between groups.
  throwIfAborted(context.signal);
  // One transaction for the group: each file still lands whole or not at all, and a crash
  // loses at most this group (<= MAX_GROUP_FILES files, about a second of work), which the next run redoes.
  await context.store.writeFiles(
    pending.map((file) => ({
      entry: {
        path: file.item.path,
        size: file.item.size,
        mtimeMs: file.item.mtimeMs,
        contentHash: file.contentHash,
        language: file.item.language,
        chunker: context.chunker,
        embedder: incomplete.has(file) ? PENDING_EMBEDDER : context.embedderId,
        chunkCount: file.chunks.length,
        indexedAt: Date.now(),
        attributes: encodeFileAttributes({ imports: file.imports, role: file.role }),
      },
      chunks: file.chunks.map((chunk) => chunk.write),
    })),
  );
  for (const file of pending) {
    if (file.item.previous) tally.updated++;
    else tally.added++;
    tally.chunksWritten += file.chunks.length;
    context.progress.done++;
    context.onProgress?.({
      type: 'file-indexed',
      path: file.item.path,
      chunks: file.chunks.length,
      done: context.progress.done,
      total: context.progress.total,
      ...(file.fallback ? { fallback: file.fallback } : {}),
    });
  }
}
