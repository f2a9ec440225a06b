import { sniffLanguage } from '../sources/language.js';
import { emptySkipCounts } from '../sources/spec.js';
import { LociError, throwIfAborted } from '../errors/index.js';
import { checkKeys } from '../errors/check-types.js';
import type { CatalogEntry } from '../store/spec.js';
import { isWellFormed } from '../store/well-formed.js';
import type { IndexSummary } from './events.js';
import { emptyTally, indexItems, type IndexItem, type IndexItemsContext } from './index-items.js';
import { summarise } from './run-index.js';

/** A document that is not a file: a BEIR record, a web page, a note. */
export interface LociDocument {
  /** Unique id, well-formed Unicode (no lone surrogate half); used as the document's path in results and filters. */
  id: string;
  title?: string;
  text: string;
  /** Language id for chunking (`text`, `markdown`, `python`, …). Default: sniffed from the first line (see sniffLanguage), else `text`. */
  language?: string;
}

/**
 * What `indexDocuments` takes: a list, or any iterable or async iterable of documents (a
 * generator reading a JSONL file, a database cursor), which is read a window at a time so
 * the documents are never all in memory at once.
 */
export type DocumentSource = readonly LociDocument[] | Iterable<LociDocument> | AsyncIterable<LociDocument>;

export interface IndexDocumentsOptions extends Omit<IndexItemsContext, 'progress' | 'pathIsContent'> {
  documents: DocumentSource;
  /** Remove indexed documents whose ids are not in `documents`. */
  prune?: boolean;
  /** Documents of a stream read, and indexed, per window (tests). */
  windowSize?: number;
}

const encoder = new TextEncoder();
/** Up to this many documents, a run looks their catalog entries up by id instead of reading every entry. */
const CATALOG_LOOKUPS = 4_096;
/** Documents of a stream indexed per window: each window's ids are looked up, indexed, then let go. */
export const DOCUMENT_WINDOW = 20_000;

const sourceHint = 'Pass a list of documents, or an iterable or async iterable of them, each { id: string, text: string, title?: string, language?: string }.';

const DOCUMENT_KEYS = ['id', 'title', 'text', 'language'];

/** One document's shape (`index`: its place in the source), before anything is read or written (a JavaScript caller's `[{ id }]` failed deep inside with a TypeError). */
function checkDocument(document: unknown, index: number): asserts document is LociDocument {
  const fields = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  const wrong: string[] = ['id', 'text'].filter((key) => typeof fields[key] !== 'string');
  for (const key of ['title', 'language']) if (fields[key] !== undefined && typeof fields[key] !== 'string') wrong.push(key);
  // A misspelled field (`tittle`) is named, not dropped; other extra fields of a richer record are left alone.
  checkKeys(document, DOCUMENT_KEYS, `document ${index}`, { shared: false });
  if (wrong.length > 0) {
    throw new LociError('INVALID_ARGUMENT', `Document ${index} needs ${wrong.map((key) => `\`${key}\``).join(' and ')} as a string; got ${JSON.stringify(Object.keys(fields))}.`, {
      hint: 'Each document is { id: string, text: string, title?: string, language?: string }.',
    });
  }
}

/** The source's documents a window at a time: a list (checked already) as one window, a stream in windows of `size`. */
async function* windowsOf(source: unknown, size: number, signal: AbortSignal | undefined): AsyncGenerator<readonly LociDocument[]> {
  if (Array.isArray(source)) {
    yield source as LociDocument[];
    return;
  }
  const iterable = source as Partial<Iterable<unknown> & AsyncIterable<unknown>> | null;
  const stream = typeof iterable === 'object' && iterable !== null ? (iterable[Symbol.asyncIterator] ?? iterable[Symbol.iterator]) : undefined;
  if (typeof stream !== 'function' || typeof source === 'string') {
    throw new LociError('INVALID_ARGUMENT', `indexDocuments takes a list of documents, e.g. [{ id: 'faq/1', text: '…' }]; got ${source === null ? 'null' : typeof source}.`, { hint: sourceHint });
  }
  let window: LociDocument[] = [];
  let index = 0;
  const iterator = (stream as () => Iterator<unknown> | AsyncIterator<unknown>).call(source);
  let finished = false;
  try {
    for (;;) {
      // Each read races the signal: a slow source (a network cursor) stops when aborted, not a window later.
      const next = await untilAborted(Promise.resolve(iterator.next()), signal);
      if (next.done) break;
      // A plain iterable's items may be promises, which for-await would have awaited.
      const document: unknown = isThenable(next.value) ? await untilAborted(Promise.resolve(next.value), signal) : next.value;
      checkDocument(document, index++);
      window.push(document);
      if (window.length >= size) {
        yield window;
        window = [];
      }
    }
    finished = true;
  } finally {
    // A source left early (an abort, a bad document, a failed run) is closed; one still reading is not awaited.
    if (!finished) Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
  if (window.length > 0) yield window;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** `pending`, or ABORTED as soon as `signal` is. */
async function untilAborted<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  throwIfAborted(signal);
  if (!signal) return pending;
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new LociError('ABORTED', 'The operation was cancelled.', { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  pending.catch(() => undefined); // a read that fails after the abort is not an unhandled rejection
  try {
    return await Promise.race([pending, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Indexes in-memory documents through the same pipeline as files (chunk, embed, write). A
 * stream is indexed a window at a time: a failure (of the source or the run) keeps the
 * windows already written, and the next run skips them as unchanged.
 */
export async function indexDocuments(options: IndexDocumentsOptions): Promise<IndexSummary> {
  const started = performance.now();
  const list = Array.isArray(options.documents) ? (options.documents as readonly LociDocument[]) : undefined;
  // A few documents are looked up by id (adding one to a big store must not read its whole
  // catalog); a long list, or a pruning run over a list (which needs every id), reads the
  // catalog once; a stream looks up each window's ids.
  const wholeCatalog = list !== undefined && (options.prune || list.length > CATALOG_LOOKUPS);
  if (list) list.forEach(checkDocument);
  const catalog = wholeCatalog ? new Map((await options.store.listCatalog()).map((entry) => [entry.path, entry])) : undefined;
  const seen = new Set<string>();
  const tally = emptyTally();
  const removeUnseen = async (paths: Iterable<string>) => {
    const removed = [...paths].filter((path) => !seen.has(path));
    if (seen.size === 0 && removed.length > 0) throw emptyPrune(removed.length);
    for (const path of removed) {
      throwIfAborted(options.signal);
      await options.store.deleteFile(path);
      tally.removed++;
      options.onProgress?.({ type: 'file-removed', path });
    }
  };
  // A list's ids are checked before anything is written or removed; documents a pruning list
  // dropped are removed first.
  if (list) {
    for (const document of list) checkId(document, seen);
    if (options.prune) await removeUnseen((catalog as Map<string, CatalogEntry>).keys());
    seen.clear();
  }
  const progress = { done: 0, total: list?.length ?? 0 };
  for await (const window of windowsOf(options.documents, options.windowSize ?? DOCUMENT_WINDOW, options.signal)) {
    throwIfAborted(options.signal);
    if (!list) progress.total += window.length; // a stream's total: the documents read so far
    const previous = catalog ?? (await options.store.getCatalogEntries([...new Set(window.map((document) => document.id))]));
    const items = window.map((document) => itemOf(document, seen, previous));
    await indexItems(items, { ...options, pathIsContent: false, progress }, tally);
  }
  // A stream's ids are known once it has ended: documents it did not name are removed now.
  if (options.prune && !list) await removeUnseen((await options.store.listCatalog()).map((entry) => entry.path));
  const counts = await options.store.countRows();
  const summary = summarise({ root: '(documents)', store: options.store, embedderId: options.embedderId }, tally, emptySkipCounts(), counts, started);
  options.onProgress?.({ type: 'index-finished', summary });
  return summary;
}

/** A pruning run given no documents would empty the index: far more often an empty file or a failed query than the intent. */
function emptyPrune(indexed: number): LociError {
  return new LociError('INVALID_ARGUMENT', `indexDocuments was given no documents with prune: true, which would remove all ${indexed} indexed documents; nothing was removed.`, {
    hint: 'Check that the source yields documents (an empty file, or a query that matched nothing). To start over on purpose, delete the store folder.',
  });
}

/** A document's id: non-empty, well-formed, not seen before (then it is). */
function checkId(document: LociDocument, seen: Set<string>): void {
  if (!document.id) throw new LociError('INVALID_ARGUMENT', 'Every document needs a non-empty id.');
  if (seen.has(document.id)) {
    throw new LociError('INVALID_ARGUMENT', `Document id ${JSON.stringify(document.id)} appears twice in the documents.`, {
      hint: 'Ids name documents in results and filters, so each must be unique: give the second its own id (add a part number, e.g. "faq/1#2"), or merge the two texts.',
    });
  }
  if (!isWellFormed(document.id)) {
    throw new LociError(
      'INVALID_ARGUMENT',
      `Document id ${JSON.stringify(document.id)} is not well-formed Unicode (it holds half of a surrogate pair): ids are stored as UTF-8, which cannot hold it. Fix how the id is made (a string cut in the middle of an emoji, for one).`,
    );
  }
  seen.add(document.id);
}

function itemOf(document: LociDocument, seen: Set<string>, catalog: ReadonlyMap<string, CatalogEntry>): IndexItem {
  checkId(document, seen);
  // The title is part of what is hashed, so a retitled document is re-indexed. Its bytes are
  // made when the run reaches it (a few hundred ahead), not for every document up front.
  const hashed = () => `${document.title ?? ''}\n${document.text}`;
  const previous = catalog.get(document.id);
  const item: IndexItem = {
    path: document.id,
    language: document.language ?? sniffLanguage(document.text),
    size: Buffer.byteLength(document.title ?? '') + 1 + Buffer.byteLength(document.text),
    mtimeMs: 0,
    load: async () => ({ ok: true, text: document.text, bytes: encoder.encode(hashed()), invalidUtf8: false }),
  };
  if (document.title) item.title = document.title;
  if (previous) item.previous = previous;
  return item;
}
