import { classifyPaths } from '../sources/classify-paths.js';
import { findSecret } from '../sources/secret-rules.js';
import { readSourceFile, walkFolder } from '../sources/index.js';
import { emptySkipCounts, type SkipCounts, type SkipReason, type SourceFile } from '../sources/spec.js';
import type { CatalogEntry, Store } from '../store/spec.js';
import type { IndexProgressListener, IndexSummary } from './events.js';
import { emptyTally, indexItems, type IndexItem, type IndexItemsContext, type IndexItemsTally } from './index-items.js';
import { planChanges } from './plan-changes.js';
import { ContentSkips } from './content-skips.js';

export interface RunIndexOptions extends Omit<IndexItemsContext, 'progress' | 'pathIsContent'> {
  root: string;
  maxFileBytes: number;
  exclude: readonly string[];
  respectGitignore: boolean;
  /** Folders never walked (the store, when it lives inside the root). */
  excludeAbsolutePaths: readonly string[];
  /** Index secrets files and content too (the user's opt-in; default: skipped). */
  indexSecrets?: boolean;
}

/** Brings the index of a folder up to date: walk, plan, index changed files, drop removed ones. */
export async function runIndex(options: RunIndexOptions): Promise<IndexSummary> {
  const started = performance.now();
  const walk = await walkFolder({
    root: options.root,
    maxFileBytes: options.maxFileBytes,
    exclude: options.exclude,
    respectGitignore: options.respectGitignore,
    excludeAbsolutePaths: options.excludeAbsolutePaths,
    ...(options.indexSecrets ? { indexSecrets: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  options.onProgress?.({ type: 'walk-finished', files: walk.files.length, skipped: walk.skipped });

  const catalog = await options.store.listCatalog();
  const tally = emptyTally();
  // Files refused for their content by an earlier run and unchanged since are not read again.
  const skips = await ContentSkips.read(options.store);
  const walked = new Set(walk.files.map((file) => file.path));
  skips.retain((path) => walked.has(path));
  const files = withoutRefused(walk.files, new Set(catalog.map((entry) => entry.path)), skips, options.indexSecrets === true, tally);
  const plan = planChanges(files, catalog, { chunker: options.chunker, embedder: options.embedderId });
  const toProcess: IndexItem[] = [...plan.add.map((file) => fileItem(file, options)), ...plan.check.map(({ file, previous }) => ({ ...fileItem(file, options), previous }))].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  options.onProgress?.({ type: 'plan-ready', toIndex: plan.add.length, toCheck: plan.check.length, unchanged: plan.unchanged.length, toRemove: plan.remove.length });

  tally.unchanged += plan.unchanged.length;
  // Removals first: they are cheap, and a cancelled run should not leave deleted files searchable.
  for (const entry of plan.remove) {
    await options.store.deleteFile(entry.path);
    tally.removed++;
    options.onProgress?.({ type: 'file-removed', path: entry.path });
  }
  await indexWithSkips(toProcess, options, tally, skips);

  const counts = await options.store.countRows();
  const summary = summarise(options, tally, walk.skipped, counts, started, walk.warnings);
  options.onProgress?.({ type: 'index-finished', summary });
  return summary;
}

/**
 * Brings just these paths (relative to the root, files or folders) up to date: the watcher's
 * path. The same ignore rules and the same per-file transaction as a full run; a folder
 * that is gone takes its indexed files with it.
 */
export async function indexPaths(options: RunIndexOptions & { paths: readonly string[] }): Promise<IndexSummary> {
  const started = performance.now();
  const walkOptions = {
    root: options.root,
    maxFileBytes: options.maxFileBytes,
    exclude: options.exclude,
    respectGitignore: options.respectGitignore,
    excludeAbsolutePaths: options.excludeAbsolutePaths,
    ...(options.indexSecrets ? { indexSecrets: true } : {}),
  };
  const classified = await classifyPaths(walkOptions, options.paths);
  const walkWarnings = classified.warnings ?? [];
  const tally = emptyTally();
  const skipped = emptySkipCounts();
  const present = new Set(classified.files.map((file) => file.path));
  const catalog = new Map<string, CatalogEntry>();
  for (const entry of (await options.store.getCatalogEntries([...present])).values()) catalog.set(entry.path, entry);
  // A vanished path may be a folder: everything indexed under it goes too.
  for (const { path, reason } of classified.gone) {
    if (reason !== 'missing') skipped[reason]++;
    const doomed = [...(await options.store.getCatalogEntries([path])).keys(), ...(await options.store.listCatalog({ pathPrefix: `${path}/` })).map((entry) => entry.path)];
    for (const doomedPath of doomed) {
      await options.store.deleteFile(doomedPath);
      tally.removed++;
      options.onProgress?.({ type: 'file-removed', path: doomedPath });
    }
  }
  const skips = await ContentSkips.read(options.store);
  const gone = classified.gone.map(({ path }) => path);
  skips.retain((path) => !gone.some((doomed) => path === doomed || path.startsWith(`${doomed}/`)));
  const files = withoutRefused(classified.files, new Set(catalog.keys()), skips, options.indexSecrets === true, tally);
  const plan = planChanges(files, [...catalog.values()], { chunker: options.chunker, embedder: options.embedderId });
  tally.unchanged += plan.unchanged.length;
  const items: IndexItem[] = [...plan.add.map((file) => fileItem(file, options)), ...plan.check.map(({ file, previous }) => ({ ...fileItem(file, options), previous }))];
  await indexWithSkips(items, options, tally, skips);
  const counts = await options.store.countRows();
  const summary = summarise(options, tally, skipped, counts, started, walkWarnings);
  options.onProgress?.({ type: 'index-finished', summary });
  return summary;
}

/** The files to plan: all but those not in the index that an earlier run refused for their content and that are unchanged since (counted as skipped here). */
function withoutRefused(files: readonly SourceFile[], indexed: ReadonlySet<string>, skips: ContentSkips, indexSecrets: boolean, tally: IndexItemsTally): SourceFile[] {
  return files.filter((file) => {
    const reason = indexed.has(file.path) ? undefined : skips.refused(file, indexSecrets);
    if (reason) tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
    return reason === undefined;
  });
}

/** indexItems, then the record of the files it refused for their content (kept only when the run ends). */
async function indexWithSkips(items: IndexItem[], options: RunIndexOptions, tally: IndexItemsTally, skips: ContentSkips): Promise<void> {
  const refused = new Map<string, SkipReason>();
  const onProgress: IndexProgressListener = (event) => {
    if (event.type === 'file-skipped') refused.set(event.path, event.reason);
    options.onProgress?.(event);
  };
  await indexItems(items, { ...options, onProgress, pathIsContent: true, progress: { done: 0, total: items.length } }, tally);
  for (const item of items) skips.note(item, refused.get(item.path));
  await skips.write(options.store);
}

function fileItem(file: SourceFile, options: { maxFileBytes: number; indexSecrets?: boolean }): IndexItem {
  return {
    path: file.path,
    language: file.language,
    size: file.size,
    mtimeMs: file.mtimeMs,
    load: async () => {
      const read = await readSourceFile(file.absolutePath, options.maxFileBytes);
      // A whole file is withheld, not one chunk: a key's neighbours are often credentials too.
      const secret = read.ok && !options.indexSecrets ? findSecret(read.text) : undefined;
      return secret ? { ok: false, reason: 'secret-content', message: `${file.path}: holds what looks like a ${secret}` } : read;
    },
  };
}

export function summarise(
  options: { root: string; store: Store; embedderId: string },
  tally: IndexItemsTally,
  walkSkipped: SkipCounts,
  counts: { files: number; chunks: number },
  started: number,
  walkWarnings: readonly string[] = [],
): IndexSummary {
  const skipped = emptySkipCounts();
  for (const [reason, count] of Object.entries(walkSkipped)) skipped[reason as keyof SkipCounts] += count;
  for (const [reason, count] of Object.entries(tally.skipped)) skipped[reason as keyof SkipCounts] += count ?? 0;
  return {
    root: options.root,
    store: options.store.location,
    embedder: options.embedderId,
    files: {
      indexed: tally.added + tally.updated,
      added: tally.added,
      updated: tally.updated,
      unchanged: tally.unchanged,
      removed: tally.removed,
      total: counts.files,
    },
    skipped,
    chunks: { written: tally.chunksWritten, total: counts.chunks },
    embeddings: { computed: tally.embeddingsComputed, cached: tally.embeddingsCached },
    seconds: Math.round((performance.now() - started) / 10) / 100,
    warnings: [...walkWarnings, ...tally.warnings, ...fileWarnings(tally)],
  };
}

export type { IndexProgressListener };

/** One line each for files cut into line windows and files skipped on an error, with examples. */
function fileWarnings(tally: IndexItemsTally): string[] {
  const warnings: string[] = [];
  const { fallbacks, failures } = tally;
  const more = (list: { count: number; examples: string[] }) => (list.count > list.examples.length ? `; ${list.count - list.examples.length} more` : '');
  if (fallbacks.count > 0) warnings.push(`${fallbacks.count} file(s) cut into line windows because their structure could not be used: ${fallbacks.examples.join('; ')}${more(fallbacks)}`);
  if (failures.count > 0) warnings.push(`${failures.count} file(s) skipped (chunk-error), the run went on: ${failures.examples.join('; ')}${more(failures)}`);
  return warnings;
}
