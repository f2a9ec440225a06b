import type { LociConfig } from '../config/schema.js';
import { resolveRequestedEmbedder, unknownEmbedder } from '../embed/registry.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import { isProviderFailure, type LociError } from '../errors/index.js';
import type { Store } from '../store/spec.js';
import { recordedSearchModel } from './search-model.js';

/**
 * Which embedder an engine indexes and searches with: the one the user asked for (option,
 * else config) for indexing, the one the store recorded for queries; the last one set up is
 * kept, so a search after an index run reuses it.
 */
export class EngineModels {
  /** The model last set up, and its spec. */
  current: { spec: string; model: EmbeddingModel | undefined } | undefined;

  constructor(
    private readonly option: string | EmbeddingModel | undefined,
    private readonly config: LociConfig,
    private readonly env: Record<string, string | undefined>,
  ) {}

  /** The id of the model last set up ('none' without one). */
  get currentId(): string {
    return this.current?.model ? embedderIdOf(this.current.model) : 'none';
  }

  /** The requested embedder for an index run, recorded in the store. */
  async forIndexing(store: Store): Promise<{ model: EmbeddingModel | undefined; spec: string }> {
    const { model, spec } = await this.requested((await store.getMeta()).embedderId);
    const { recordEmbedder } = await import('../indexing/index-job.js');
    await recordEmbedder(store, model, spec);
    this.current = { spec, model };
    return { model, spec };
  }

  /** The search model, or the provider failure that kept it from being set up (anything else is thrown). */
  async orFailure(store: Store, embedderId: string): Promise<{ model: EmbeddingModel | undefined; unavailable: LociError | undefined }> {
    try {
      return { model: await this.forSearch(store, embedderId), unavailable: undefined };
    } catch (error) {
      if (!isProviderFailure(error)) throw error;
      return { model: undefined, unavailable: error };
    }
  }

  async forSearch(store: Store, embedderId: string): Promise<EmbeddingModel | undefined> {
    if (embedderId === 'none') return undefined;
    if (this.current?.model && embedderIdOf(this.current.model) === embedderId) return this.current.model;
    if (typeof this.option === 'object' && embedderIdOf(this.option) === embedderId) return this.option;
    const configured = typeof this.option === 'string' ? this.option : this.config.embedder;
    const { spec, model } = await recordedSearchModel(store, embedderId, configured, this.context());
    this.current = { spec, model };
    return model;
  }

  /**
   * A warning for searches when the embedder the user asked for names no provider: a search
   * uses the one the index recorded, so the mistake would show only at the next index run.
   */
  requestedNote(): string | undefined {
    const requested = this.option ?? this.config.embedder;
    if (typeof requested !== 'string') return undefined;
    const unknown = unknownEmbedder(requested);
    return unknown ? `${unknown.message} Searches use the embedder the index was built with; \`loci index\` refuses this one until it is fixed.` : undefined;
  }

  /**
   * The embedder the user asked for (option, else config), resolved one way everywhere; the
   * embedder id a store recorded lends its size, so a model known there is never probed.
   */
  requested(recordedEmbedderId?: string): Promise<{ model: EmbeddingModel | undefined; spec: string }> {
    return resolveRequestedEmbedder(this.option ?? this.config.embedder, this.context(recordedEmbedderId));
  }

  private context(recordedEmbedderId?: string) {
    return { config: this.config, env: this.env, ...(recordedEmbedderId ? { recordedEmbedderId } : {}) };
  }
}
