import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { readSegmentHeader, sameIdentity, SegmentReader, sortTerms } from '../../store/segment-file.js';
import { type MetaTable, SegmentError, type SegmentContents, type SegmentHeader, type TermTable } from '../../store/segment-format.js';
import type { Store } from '../../store/spec.js';
import { STORE_INSTANCE_STATE } from '../../store/file-names.js';
import type { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import type { LexicalIndex } from './lexical-index.js';
import type { Lexicon } from './lexicon.js';
import type { SegmentEvent } from './warm-options.js';
import { prefetchOnThread } from './segment-prefetch.js';

/** Named store state holding a random id of the store, so a segment file is never read against another store. */
export { STORE_INSTANCE_STATE };

/** The store's instance id, or undefined while it has none (graph files saved for another store are refused by it). */
export async function storeInstanceOf(store: Store): Promise<string | undefined> {
  return (await store.readState(STORE_INSTANCE_STATE)) || undefined;
}

/** Gives the store an instance id if it has none (indexing calls this; readers never write). */
export async function ensureStoreInstance(store: Store): Promise<void> {
  if (!(await store.readState(STORE_INSTANCE_STATE))) await store.writeState(STORE_INSTANCE_STATE, randomUUID());
}

/** A warm index's parts, as its segment file holds them. */
export interface WarmParts {
  header: SegmentContents['header'];
  lexical: LexicalIndex;
  vectors: ExactOrGraphVectorIndex | undefined;
  termIds: Lexicon;
  /** Rows held without a vector yet, with the content hash their vector will come by. */
  withoutVector: ReadonlyMap<number, { path: string; language: string; contentHash: string }>;
}

/**
 * What a warm index saves: snapshots of its lexical and vector sides sharing one row-metadata
 * table (a vector row whose file the lexical side lacks gets an entry appended), its lexicon
 * sorted, and the rows still waiting for a vector.
 */
export function segmentContents(parts: WarmParts): SegmentContents {
  const lexical = parts.lexical.snapshot();
  const metaIds = new Map<string, number>(lexical.metas.map((meta, index) => [`${meta.language}\u0000${meta.path}`, index]));
  const metaId = (meta: { path: string; language: string }): number => {
    const key = `${meta.language}\u0000${meta.path}`;
    let id = metaIds.get(key);
    if (id === undefined) {
      id = lexical.metas.length;
      lexical.metas.push({ path: meta.path, language: meta.language });
      metaIds.set(key, id);
    }
    return id;
  };
  const vectors = parts.vectors?.snapshot(metaId);
  return {
    header: parts.header,
    lexical,
    vectors,
    lexicon: sortTerms(parts.termIds.entries()),
    pending: [...parts.withoutVector].map(([rowId, { contentHash, ...meta }]) => ({ rowId, meta, contentHash })),
  };
}

/**
 * Opens the segment file if it is whole and was written from this store with these settings;
 * else `rejected` hears why (a missing file is no rejection) and there is none.
 */
export async function openMatchingSegment(
  store: Store,
  file: string,
  expected: Pick<SegmentHeader, 'storeInstance' | 'embedderId' | 'dimensions' | 'weights'>,
  rejected: (reason: string) => void,
): Promise<SegmentReader | undefined> {
  let reader: SegmentReader;
  try {
    reader = SegmentReader.open(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') rejected((error as Error).message);
    return undefined;
  }
  // The file's last lexicon id must be one the store has: ids size in-memory arrays, so a
  // file claiming more than the store holds is not trusted.
  const lastTerm = reader.header.lastLexiconId;
  const lexiconKnown = lastTerm === 0 || (await store.readLexicon(lastTerm - 1))[0]?.[0] === lastTerm;
  const mismatch = segmentMismatch(reader.header, expected) ?? (lexiconKnown ? undefined : "its lexicon is not the store's");
  if (!mismatch) return reader;
  reader.close();
  rejected(mismatch);
  return undefined;
}

/** Why a segment cannot stand for an index (another store, embedder or weights), if it cannot. */
export function segmentMismatch(header: SegmentHeader, expected: Pick<SegmentHeader, 'storeInstance' | 'embedderId' | 'dimensions' | 'weights'>): string | undefined {
  if (header.storeInstance !== expected.storeInstance) return 'written from another store';
  if (header.embedderId !== expected.embedderId || header.dimensions !== expected.dimensions) return 'written for another embedder';
  if (JSON.stringify(header.weights) !== JSON.stringify(expected.weights)) return 'written with other field weights';
  return undefined;
}

/** Terms whose postings one background step reads. */
const PREFETCH_SLICE = 2_000;
/** Lexicon or path blocks one background step reads. */
const PREFETCH_BLOCKS = 256;
/** Bytes of the vector matrix one background step reads (and checksums): a few milliseconds. */
const PREFETCH_MATRIX_BYTES = 8 * 1024 * 1024;
/** How often a held-off background read looks again. */
const HOLD_OFF_MS = 250;
/** How long one background step builds block summaries (lexical-index.ts#summarizeLongLists). */
const SUMMARY_SLICE_MS = 5;

/**
 * The lexicon and path blocks, postings, then the vector matrix, read between other work,
 * never keeping the process alive: later searches read nothing from the file (at 1M rows,
 * rescoring a graph's 400 candidates row by row from the file took ~1.5 ms). The postings and
 * the matrix are read on a worker thread when one can be had (segment-prefetch.ts), so neither
 * the reads nor the first touch of the memory they fill stall searches (on the bench machine,
 * 3-4 ms a MB); otherwise, or once that thread gives up, here a slice at a time (a few
 * milliseconds each). Stops once `current` says the index was replaced; damage found goes to
 * `damaged`. Waits while `holdOff` says so: a graph another thread is finishing for this index
 * (at 1M rows, that graph and the whole index read back at once were the peak of a build's memory).
 */
export function prefetchInBackground(
  tables: { lexicon: TermTable; metas: MetaTable | undefined; segment?: { file: string; reader: SegmentReader; onSegment?: ((event: SegmentEvent) => void) | undefined } },
  lexical: LexicalIndex,
  vectors: ExactOrGraphVectorIndex | undefined,
  current: () => boolean,
  damaged: (error: SegmentError) => void,
  holdOff: () => boolean = () => false,
): void {
  const { segment } = tables;
  const started = performance.now();
  /** Whether a worker thread reads the postings and the matrix (until it gives up), and whether it has read them. */
  let onThread = false;
  let threadTried = segment === undefined;
  let threadDone = false;
  let stepsDone = false;
  /** Reported once everything is read, by whichever of this thread and the worker ends last. */
  const ended = (): void => {
    if (!stepsDone || (onThread && !threadDone) || !current()) return;
    if (segment) segment.onSegment?.({ type: 'segment-prefetched', file: segment.file, rows: segment.reader.header.rows, ms: performance.now() - started, thread: onThread });
    // Then the long lists' block summaries, a slice at a time (~0.6–0.7 s in all at 1M chunks): a
    // query whose terms had none yet built them, BM25 mean 6.8–7.3 ms against 3.7–3.8 (docs/benchmarks.md).
    const summarize = (): void => {
      try {
        if (current() && lexical.summarizeLongLists(SUMMARY_SLICE_MS)) setTimeout(summarize, 0).unref();
      } catch (error) {
        // As the read above: damage resets the index; anything else only ends this (queries build what is left).
        if (error instanceof SegmentError) damaged(error);
      }
    };
    setTimeout(summarize, 0).unref();
  };
  const step = (): void => {
    if (!current()) return;
    if (holdOff()) {
      setTimeout(step, HOLD_OFF_MS).unref();
      return;
    }
    let more: boolean;
    try {
      if (!threadTried && segment) {
        threadTried = true;
        onThread = prefetchOnThread(segment.file, segment.reader.identity(), {
          postings: (range) => lexical.adoptPostings(range),
          matrix: vectors ? (matrix) => vectors.prefetchMatrix(matrix) : undefined,
          current,
          damaged,
          finished: () => {
            threadDone = true;
            ended();
          },
          fallback: () => {
            // The rest is read here (what the thread handed over stays adopted): by this
            // thread's chain of steps, started again only if it had ended.
            const chainEnded = stepsDone;
            onThread = false;
            stepsDone = false;
            if (chainEnded) setTimeout(step, 0).unref();
          },
        });
      }
      more =
        (tables.lexicon.prefetch?.(PREFETCH_BLOCKS) ?? false) ||
        (tables.metas?.prefetch?.(PREFETCH_BLOCKS) ?? false) ||
        (!onThread && (lexical.prefetch(PREFETCH_SLICE) || (vectors?.prefetchMatrix(PREFETCH_MATRIX_BYTES) ?? false)));
    } catch (error) {
      // Damage resets the index; anything else (the disk failing under a timer) only ends the
      // background read: searches read what they need and meet the error themselves.
      if (error instanceof SegmentError) damaged(error);
      return;
    }
    if (more) setTimeout(step, 0).unref();
    else {
      stepsDone = true;
      ended();
    }
  };
  setTimeout(step, 0).unref();
}

/**
 * Deletes a segment file found damaged, so no process reads it again, but only while the path
 * still names the file `reader` opened: another process may have saved a good one there since.
 * Without a reader, whatever the path names is deleted.
 */
export function dropDamagedSegment(file: string, reader: SegmentReader | undefined): void {
  try {
    if (reader && !sameIdentity(statSync(file), reader.identity())) return;
    rmSync(file, { force: true });
  } catch {
    // gone already, or the reader was closed: nothing to compare, so nothing is deleted
  }
}

/** Rows with a vector, as the segment file counts them (chunks still waiting for theirs want no graph); without one, the store's chunks. */
export async function vectorRows(store: Store, segmentFile: string | undefined): Promise<number> {
  const header = segmentFile ? readSegmentHeader(segmentFile) : undefined;
  return header ? header.vectors : store.countChunks();
}
