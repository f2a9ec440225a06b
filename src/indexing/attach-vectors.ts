import { embedMany } from '../embed/embed-many.js';
import type { EmbeddingModel } from '../embed/spec.js';
import { throwIfAborted } from '../errors/index.js';
import { sha256Hex } from '../sources/content-hash.js';
import type { ChunkRecord, Store } from '../store/spec.js';
import type { IndexProgressListener } from './events.js';
import { createYielder, PENDING_EMBEDDER } from './index-items.js';
import { embeddedText, embeddingContextOf } from './prepare-chunks.js';

export interface AttachVectorsOptions {
  store: Store;
  model: EmbeddingModel;
  embedderId: string;
  signal?: AbortSignal;
  onProgress?: IndexProgressListener;
}

export interface AttachVectorsResult {
  /** Files whose vectors are complete now. */
  files: number;
  computed: number;
  cached: number;
  /** Files left pending: a chunk whose embedder input could not be rebuilt (the next full run redoes them). */
  leftPending: number;
  warnings: string[];
}

/** Files per group: one embedding batch and one catalog transaction each. */
const GROUP_FILES = 64;

/**
 * Progressive phase 2: the chunks phase 1 wrote without vectors get them, and nothing else
 * is written. Each chunk's embedder input is rebuilt from the stored row (path and heading
 * above the text, as prepare-chunks.ts builds it) and checked against its content hash;
 * only hashes the cache lacks are embedded; then the files' catalog rows name the embedder.
 * No file is read again, no chunk or lexical row rewritten.
 */
export async function attachPendingVectors(options: AttachVectorsOptions): Promise<AttachVectorsResult> {
  const { store, model, embedderId } = options;
  const result: AttachVectorsResult = { files: 0, computed: 0, cached: 0, leftPending: 0, warnings: [] };
  const pending = (await store.listCatalog()).filter((entry) => entry.embedder === PENDING_EMBEDDER).map((entry) => entry.path);
  const yieldTurn = createYielder();
  let done = 0;
  for (let start = 0; start < pending.length; start += GROUP_FILES) {
    throwIfAborted(options.signal);
    const paths = pending.slice(start, start + GROUP_FILES);
    const byPath = new Map<string, ChunkRecord[]>(paths.map((path) => [path, []]));
    for (const record of await store.listChunks(paths)) byPath.get(record.path)?.push(record);
    const inputs = new Map<string, string>();
    const complete: string[] = [];
    for (const [path, records] of byPath) {
      const rebuilt = records.map((record) => [record.contentHash, embedderInputOf(record)] as const);
      if (rebuilt.some(([, input]) => input === undefined)) {
        result.leftPending++;
        continue;
      }
      for (const [hash, input] of rebuilt) inputs.set(hash, input as string);
      complete.push(path);
    }
    const hashes = [...inputs.keys()];
    const cached = await store.getCachedVectors(embedderId, hashes);
    const missing = hashes.filter((hash) => !cached.has(hash));
    result.cached += cached.size;
    if (missing.length > 0) {
      const embedded = await embedMany({ model, values: missing.map((hash) => inputs.get(hash) as string), purpose: 'document', ...(options.signal ? { abortSignal: options.signal } : {}) });
      for (const warning of embedded.warnings) if (!result.warnings.includes(warning)) result.warnings.push(warning);
      const fresh = new Map<string, Float32Array>();
      missing.forEach((hash, index) => {
        const vector = embedded.embeddings[index];
        if (vector) fresh.set(hash, vector);
      });
      await store.putCachedVectors(embedderId, fresh);
      result.computed += fresh.size;
      // A file whose chunks did not all get a vector stays pending (the next run retries it).
      for (let index = complete.length - 1; index >= 0; index--) {
        const records = byPath.get(complete[index] as string) ?? [];
        if (records.some((record) => !cached.has(record.contentHash) && !fresh.has(record.contentHash))) {
          complete.splice(index, 1);
          result.leftPending++;
        }
      }
    }
    throwIfAborted(options.signal);
    await store.setFileEmbedder(complete, embedderId);
    result.files += complete.length;
    for (const path of paths) {
      done++;
      options.onProgress?.({ type: 'file-indexed', path, chunks: byPath.get(path)?.length ?? 0, done, total: pending.length });
    }
    await yieldTurn();
  }
  return result;
}

/** The exact text phase 1 would have embedded for this chunk, if its content hash confirms it. */
export function embedderInputOf(record: Pick<ChunkRecord, 'path' | 'headingPath' | 'text' | 'contentHash'>): string | undefined {
  // Files embed their path above the text; documents (opaque ids) do not.
  for (const path of [record.path, '']) {
    const input = embeddedText(embeddingContextOf(path, record.headingPath), record.text);
    if (sha256Hex(input) === record.contentHash) return input;
  }
  return undefined;
}
