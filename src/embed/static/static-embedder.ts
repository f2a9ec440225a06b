import type { EmbeddingModel } from '../spec.js';
import { loadStaticModel, type StaticModel } from './static-model.js';
import { packageFile } from '../../package-files.js';

/** The model shipped in the package (built by scripts/embedder/, see docs/embedder.md). */
export const DEFAULT_STATIC_MODEL_FILE = packageFile('models/loci-static-v1.bin');
export const DEFAULT_STATIC_MODEL_ID = 'loci-static-v1';
/**
 * The first 12 hex digits of the shipped model's sha256 (its embedder revision), so a start
 * need not hash 9 MB; the tests hash the file and fail when this is stale.
 */
export const DEFAULT_STATIC_MODEL_DIGEST = '289e0216a3f1';

const loaded = new Map<string, StaticModel>();

export interface StaticEmbedderOptions {
  /** A model file; default the one shipped with loci. */
  file?: string;
  modelId?: string;
}

/**
 * The offline default: a static token-embedding model that ships inside the package, so
 * a fresh machine embeds semantically with no network and no download. Thousands of
 * texts per second on one core.
 */
export function createStaticEmbedder(options: StaticEmbedderOptions = {}): EmbeddingModel {
  const file = options.file ?? DEFAULT_STATIC_MODEL_FILE;
  let model = loaded.get(file);
  if (!model) {
    model = loadStaticModel(file, file === DEFAULT_STATIC_MODEL_FILE ? { digest: DEFAULT_STATIC_MODEL_DIGEST } : {});
    loaded.set(file, model);
  }
  const ready = model;
  return {
    specificationVersion: 'v1',
    provider: 'static',
    modelId: options.modelId ?? (options.file ? file : DEFAULT_STATIC_MODEL_ID),
    dimensions: ready.dimensions,
    maxEmbeddingsPerCall: 2048,
    supportsParallelCalls: false,
    revision: ready.digest,
    async doEmbed({ values, purpose }) {
      return { embeddings: values.map((value) => ready.embed(value, purpose)) };
    },
    async doEmbedTermStats({ stats, fields, purpose }) {
      return { embeddings: stats.map(ready.termStatsEmbedder(fields, purpose)) };
    },
  };
}
