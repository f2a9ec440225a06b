import { sniffLanguage } from '../sources/language.js';
import { emptySkipCounts } from '../sources/spec.js';
import { LociError } from '../errors/index.js';
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

export interface IndexDocumentsOptions extends Omit<IndexItemsContext, 'progress' | 'pathIsContent'> {
  documents: readonly LociDocument[];
  /** Remove indexed documents whose ids are not in `documents`. */
  prune?: boolean;
}

const encoder = new TextEncoder();
/** Up to this many documents, a run looks their catalog entries up by id instead of reading every entry. */
const CATALOG_LOOKUPS = 4_096;

/** Every document's shape, before anything is read or written (a JavaScript caller's `[{ id }]` failed deep inside with a TypeError). */
function checkDocuments(documents: unknown): void {
  if (!Array.isArray(documents)) throw new LociError('INVALID_ARGUMENT', `indexDocuments takes a list of documents, e.g. [{ id: 'faq/1', text: '…' }]; got ${typeof documents}.`);
  documents.forEach((document: unknown, index) => {
    const fields = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
    const wrong: string[] = ['id', 'text'].filter((key) => typeof fields[key] !== 'string');
    for (const key of ['title', 'language']) if (fields[key] !== undefined && typeof fields[key] !== 'string') wrong.push(key);
    if (wrong.length > 0) {
      throw new LociError('INVALID_ARGUMENT', `Document ${index} needs ${wrong.map((key) => `\`${key}\``).join(' and ')} as a string; got ${JSON.stringify(Object.keys(fields))}.`, {
        hint: 'Each document is { id: string, text: string, title?: string, language?: string }.',
      });
    }
  });
}

/** Indexes in-memory documents through the same pipeline as files (chunk, embed, write). */
export async function indexDocuments(options: IndexDocumentsOptions): Promise<IndexSummary> {
  const started = performance.now();
  checkDocuments(options.documents);
  // A few documents are looked up by id (adding one to a big store must not read its whole
  // catalog); many, or a pruning run (which needs every id), read the catalog once.
  const catalog =
    options.prune || options.documents.length > CATALOG_LOOKUPS
      ? new Map((await options.store.listCatalog()).map((entry) => [entry.path, entry]))
      : await options.store.getCatalogEntries([...new Set(options.documents.map((document) => document.id))]);
  const seen = new Set<string>();
  const items: IndexItem[] = options.documents.map((document) => {
    if (!document.id) throw new LociError('INVALID_ARGUMENT', 'Every document needs a non-empty id.');
    if (seen.has(document.id)) throw new LociError('INVALID_ARGUMENT', `Document id ${document.id} appears twice.`);
    if (!isWellFormed(document.id)) {
      throw new LociError(
        'INVALID_ARGUMENT',
        `Document id ${JSON.stringify(document.id)} is not well-formed Unicode (it holds half of a surrogate pair): ids are stored as UTF-8, which cannot hold it. Fix how the id is made (a string cut in the middle of an emoji, for one).`,
      );
    }
    seen.add(document.id);
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
  });
  const tally = emptyTally();
  if (options.prune) {
    for (const path of catalog.keys()) {
      if (seen.has(path)) continue;
      await options.store.deleteFile(path);
      tally.removed++;
    }
  }
  await indexItems(items, { ...options, pathIsContent: false, progress: { done: 0, total: items.length } }, tally);
  const counts = await options.store.countRows();
  const summary = summarise({ root: '(documents)', store: options.store, embedderId: options.embedderId }, tally, emptySkipCounts(), counts, started);
  options.onProgress?.({ type: 'index-finished', summary });
  return summary;
}
