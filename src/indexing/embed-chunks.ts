import { embedMany } from '../embed/embed-many.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import type { Store } from '../store/spec.js';
import { throwIfAborted } from '../errors/index.js';
import { EMBEDDED_FIELDS, embeddingInputOf, type PreparedChunk } from './prepare-chunks.js';

export interface EmbedChunksResult {
  computed: number;
  cached: number;
  warnings: string[];
}

/**
 * Gives every chunk its vector: from the store's embedding cache when (embedder, content
 * hash) is known, otherwise from the model. Identical texts are embedded once.
 */
export async function embedChunks(chunks: readonly PreparedChunk[], model: EmbeddingModel, store: Store, abortSignal?: AbortSignal): Promise<EmbedChunksResult> {
  if (chunks.length === 0) return { computed: 0, cached: 0, warnings: [] };
  const embedderId = embedderIdOf(model);
  const hashes = [...new Set(chunks.map((chunk) => chunk.write.contentHash))];
  const vectors = await store.getCachedVectors(embedderId, hashes);
  const cached = vectors.size;
  const missing = hashes.filter((hash) => !vectors.has(hash));
  let warnings: string[] = [];
  const chunkByHash = new Map(chunks.map((chunk) => [chunk.write.contentHash, chunk]));
  if (missing.length > 0 && model.doEmbedTermStats && missing.every((hash) => chunkByHash.get(hash)?.embedsFromTerms)) {
    // The model reads loci's tokens: the counts made for the lexical fields, not a second pass.
    throwIfAborted(abortSignal);
    const stats = missing.map((hash) => (chunkByHash.get(hash) as PreparedChunk).write.termStats);
    const result = await model.doEmbedTermStats({ stats, fields: EMBEDDED_FIELDS, purpose: 'document' });
    missing.forEach((hash, index) => {
      const vector = result.embeddings[index] as Float32Array | number[];
      vectors.set(hash, vector instanceof Float32Array ? vector : Float32Array.from(vector));
    });
  } else if (missing.length > 0) {
    const result = await embedMany({
      model,
      values: missing.map((hash) => embeddingInputOf(chunkByHash.get(hash) as PreparedChunk)),
      purpose: 'document',
      ...(abortSignal ? { abortSignal } : {}),
    });
    missing.forEach((hash, index) => vectors.set(hash, result.embeddings[index] as Float32Array));
    warnings = result.warnings;
  }
  for (const chunk of chunks) {
    const vector = vectors.get(chunk.write.contentHash);
    if (vector) chunk.write.vector = vector;
  }
  return { computed: missing.length, cached, warnings };
}
