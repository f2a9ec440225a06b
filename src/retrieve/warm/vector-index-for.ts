import { defaultHnswOptions } from './hnsw-options.js';
import { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';

export type { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';

/** The vector index a warm index holds (none without an embedder). */
export function vectorIndexFor(options: {
  embedderId: string;
  dimensions: number;
  graphFile?: string;
  graphThreshold?: number;
  buildGraph?: boolean;
  /** The store's instance id, once read (HnswOptions.storeInstance). */
  storeInstance?: () => string | undefined;
}): ExactOrGraphVectorIndex | undefined {
  return options.embedderId !== 'none' && options.dimensions > 0
    ? new ExactOrGraphVectorIndex(options.dimensions, {
        ...defaultHnswOptions,
        ...(options.graphFile ? { file: options.graphFile } : {}),
        ...(options.graphThreshold !== undefined ? { threshold: options.graphThreshold } : {}),
        ...(options.buildGraph === false ? { build: false } : {}),
        ...(options.storeInstance ? { storeInstance: options.storeInstance } : {}),
      })
    : undefined;
}
