import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { LociConfig } from '../config/schema.js';
import { throwIfAborted } from '../errors/index.js';
import { walkFolder } from '../sources/index.js';
import type { Store } from '../store/spec.js';
import { NO_VECTOR_GRAPH_WARNING, vectorGraphAvailable } from '../retrieve/warm/usearch-graph.js';
import type { IndexStatus } from './status-types.js';
import { LAST_RUN_STATE } from '../indexing/run-state.js';
import { storeContent } from '../indexing/store-content.js';
import { ContentSkips } from '../indexing/content-skips.js';
import { failedRunStatus } from './failed-run.js';
import { currentRun, interruptedRun } from './run-lease.js';
import { indexFileBytes } from './index-files.js';
import type { StoreLocation } from '../store/location.js';

export interface CollectStatusOptions {
  root: string;
  store: Store;
  config: LociConfig;
  excludeAbsolutePaths: string[];
  checkChanges: boolean;
  /** Where the store is: its segment and graph files count in bytesOnDisk. */
  location: StoreLocation;
  signal?: AbortSignal;
}

/** Counts from the store plus, if asked, what changed in the folder since the last index. */
export async function collectStatus(collect: CollectStatusOptions): Promise<IndexStatus> {
  const { store } = collect;
  const [meta, counts, lastRun, running, failed, interrupted] = await Promise.all([
    store.getMeta(),
    store.counts(),
    store.readState(LAST_RUN_STATE),
    currentRun(store),
    failedRunStatus(store),
    interruptedRun(store),
  ]);
  const options = { ...collect, ...failed, lastRun: lastRun ? (JSON.parse(lastRun) as IndexStatus['lastRun']) : undefined, running };
  const status: IndexStatus = {
    root: options.root,
    store: store.location,
    embedder: meta.embedderId,
    schemaVersion: meta.schemaVersion,
    files: counts.files,
    chunks: counts.chunks,
    vectors: counts.vectors,
    cachedVectors: counts.cachedEmbeddings,
    bytesOnDisk: counts.bytesOnDisk + (await indexFileBytes(options.location)),
    warnings: [
      ...(meta.embedderId !== 'none' && counts.vectors > 0 && !vectorGraphAvailable() ? [NO_VECTOR_GRAPH_WARNING] : []),
      ...(options.lastRun?.warnings ?? []).filter((warning) => warning.includes('grammar failed to load')),
    ],
  };
  if (options.running) status.running = options.running;
  if (interrupted && !options.running) status.interrupted = interrupted;
  if (options.lastRun) status.lastRun = options.lastRun;
  if (options.lastFailure) status.lastFailure = options.lastFailure;
  // No vectors yet although an embedder was asked for (a first index that failed): say which.
  if (meta.embedderId === 'none' && options.requestedEmbedder && options.requestedEmbedder !== 'none') status.requestedEmbedder = options.requestedEmbedder;
  // Documents are no files: nothing on disk to compare them with.
  if ((await storeContent(store)) === 'documents') status.content = 'documents';
  if (!options.checkChanges || status.content === 'documents') return status;

  throwIfAborted(options.signal);
  const walk = await walkFolder({
    root: options.root,
    maxFileBytes: options.config.sources.maxFileBytes,
    exclude: options.config.sources.exclude,
    respectGitignore: options.config.sources.respectGitignore,
    excludeAbsolutePaths: options.excludeAbsolutePaths,
    indexSecrets: options.config.sources.indexSecrets,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const catalog = new Map((await store.listCatalog()).map((entry) => [entry.path, entry]));
  // Files the last runs read and refused for their content (binary, a secret), unchanged since: the next run skips them too.
  const skips = await ContentSkips.read(store);
  const indexSecrets = options.config.sources.indexSecrets === true;
  const changes = { modified: [] as string[], added: [] as string[], deleted: [] as string[], excluded: [] as string[] };
  const present = new Set<string>();
  for (const file of walk.files) {
    present.add(file.path);
    const entry = catalog.get(file.path);
    if (!entry) {
      if (!skips.refused(file, indexSecrets)) changes.added.push(file.path);
    } else if (entry.size !== file.size || entry.mtimeMs !== file.mtimeMs) changes.modified.push(file.path);
  }
  // Indexed files the walk no longer reads: gone from disk, or still there but now skipped
  // (newly ignored, a secret, grown too big); the next run drops both from the index.
  const absent = [...catalog.keys()].filter((path) => !present.has(path));
  const onDisk = await Promise.all(
    absent.map((path) =>
      stat(join(options.root, path)).then(
        (info) => info.isFile(),
        () => false,
      ),
    ),
  );
  absent.forEach((path, index) => (onDisk[index] ? changes.excluded : changes.deleted).push(path));
  status.changes = changes;
  return status;
}
