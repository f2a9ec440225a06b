import { LociError } from '../errors/index.js';
import { embedderIdOf, type EmbeddingModel } from './spec.js';

/** `openai:text-embedding-3-small@1536`, `static:loci-static-v1@128#3f2a…` → its parts. */
export function parseEmbedderId(embedderId: string): { provider: string; modelId: string; dimensions: number; revision?: string } | undefined {
  const match = /^([^:@#]+):(.+)@(\d+)(?:#(.+))?$/.exec(embedderId);
  if (!match) return undefined;
  return { provider: match[1] as string, modelId: match[2] as string, dimensions: Number(match[3]), ...(match[4] ? { revision: match[4] } : {}) };
}

/**
 * A model known only by the id a store recorded, set up on its first call: when setting it
 * up failed for now (a key not yet exported, a server down), a long-lived process keeps
 * writing records (without vectors, embedded later) and tries again on each later call.
 * Until it is set up it embeds small batches one at a time. Undefined for an id it cannot read.
 */
export function deferredModel(embedderId: string, resolve: () => Promise<EmbeddingModel | undefined>): EmbeddingModel | undefined {
  const identity = parseEmbedderId(embedderId);
  if (!identity) return undefined;
  let real: EmbeddingModel | undefined;
  let loading: Promise<EmbeddingModel> | undefined;
  const load = async (): Promise<EmbeddingModel> => {
    const model = await resolve();
    if (!model || embedderIdOf(model) !== embedderId) {
      // Another model now: its vectors must not be stored under this id. A restart re-embeds with it.
      throw new LociError('EMBEDDER_FAILED', `The configured embedder is now ${model ? embedderIdOf(model) : 'none'}, but this store holds ${embedderId} vectors.`, {
        hint: 'Restart loci to re-embed with the configured embedder, or configure the one the store was built with.',
      });
    }
    return model;
  };
  return {
    specificationVersion: 'v1',
    provider: identity.provider,
    modelId: identity.modelId,
    dimensions: identity.dimensions,
    ...(identity.revision ? { revision: identity.revision } : {}),
    get maxEmbeddingsPerCall() {
      return real?.maxEmbeddingsPerCall ?? 16;
    },
    get supportsParallelCalls() {
      return real?.supportsParallelCalls ?? false;
    },
    get maxParallelCalls() {
      return real?.maxParallelCalls;
    },
    async doEmbed(options) {
      if (!real) {
        loading ??= load().finally(() => {
          loading = undefined;
        });
        real = await loading;
      }
      return real.doEmbed(options);
    },
  };
}
