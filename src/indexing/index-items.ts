import { extractImports } from '../chunk/imports.js';
import { classifyFileRole, type FileRole } from '../sources/file-role.js';
import { encodeFileAttributes } from '../store/file-attributes.js';
import { chunkFileWithOutcome } from '../chunk/index.js';
import type { ChunkInput } from '../chunk/spec.js';
import type { EmbeddingModel } from '../embed/spec.js';
import { throwIfAborted } from '../errors/index.js';
import type { ReadResult, SkipCounts, SkipReason } from '../sources/spec.js';
import type { CatalogEntry, Store } from '../store/spec.js';
import { embedChunks } from './embed-chunks.js';
import type { IndexProgressListener } from './events.js';
import { sha256Hex } from '../sources/content-hash.js';
import { prepareChunks, type PreparedChunk } from './prepare-chunks.js';

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
// transaction per group instead of per file.
const BATCH_CHUNKS = 128;
const BATCH_FILES = 64;

const READ_AHEAD = 16;

/** Starts up to `ahead` loads beyond the one being awaited; each result is awaited once. */
function prefetch<T, R>(items: readonly T[], load: (item: T) => Promise<R>, ahead: number): (index: number) => Promise<R> {
  const started = new Map<number, Promise<R>>();
  let next = 0;
  const start = (index: number) => {
    const promise = load(items[index] as T);
    promise.catch(() => undefined); // observed when awaited; avoids an unhandled rejection meanwhile
    started.set(index, promise);
  };
  return (index: number) => {
    while (next < items.length && next <= index + ahead) start(next++);
    const promise = started.get(index) as Promise<R>;
    started.delete(index);
    return promise;
  };
}

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
  const flush = async () => {
    await writePending(pending, context, tally, yieldTurn);
    pending = [];
    pendingChunks = 0;
  };
  // Reads run ahead of processing so the disk and the CPU work at the same time.
  const loads = prefetch(items, (item) => item.load(), READ_AHEAD);
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
  for (const [index, item] of items.entries()) {
    await yieldTurn();
    throwIfAborted(context.signal);
    let loaded: ReadResult;
    try {
      loaded = await loads(index);
    } catch (error) {
      await skipItem(item, 'unreadable', messageOf(error)); // a read that threw, not one that said why
      continue;
    }
    if (!loaded.ok) {
      await skipItem(item, loaded.reason);
      continue;
    }
    const contentHash = sha256Hex(loaded.bytes);
    const previous = item.previous;
    // Phase 1 leaves a file that is only waiting for its vectors as it is: phase 2 attaches them.
    const current = previous?.embedder === context.embedderId || (context.deferVectors === true && previous?.embedder === PENDING_EMBEDDER);
    if (previous && previous.contentHash === contentHash && previous.chunker === context.chunker && current) {
      await context.store.touchFile(item.path, item.size, item.mtimeMs);
      tally.unchanged++;
      context.progress.done++;
      context.onProgress?.({ type: 'file-unchanged', path: item.path, done: context.progress.done, total: context.progress.total });
      continue;
    }
    // Whatever one file's content does to the chunker, the run goes on without that file.
    let file: PendingFile;
    try {
      const outcome = await chunkFileWithOutcome({ path: item.path, text: loaded.text, language: item.language, ...context.chunking, ...(item.title ? { title: item.title } : {}) });
      const chunks = prepareChunks(outcome.drafts, { path: item.path, language: item.language, pathIsContent: context.pathIsContent });
      const role = context.pathIsContent ? classifyFileRole(item.path, item.language, loaded.text) : 'implementation';
      file = { item, contentHash, chunks, imports: extractImports(loaded.text, item.language, item.path), role, ...(outcome.fallback ? { fallback: outcome.fallback } : {}) };
    } catch (error) {
      await skipItem(item, 'chunk-error', messageOf(error));
      continue;
    }
    if (file.fallback) note(tally.fallbacks, `${item.path} (${file.fallback})`);
    pending.push(file);
    pendingChunks += file.chunks.length;
    if (pendingChunks >= BATCH_CHUNKS || pending.length >= BATCH_FILES) await flush();
  }
  await flush();
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
  // loses at most this group (<= BATCH_FILES files), which the next run redoes.
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
