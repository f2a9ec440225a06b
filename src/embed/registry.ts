import { LociError } from '../errors/index.js';
import { meantKey } from '../errors/meant-key.js';
import type { LociConfig } from '../config/schema.js';
import type { EmbeddingModel } from './spec.js';

export interface EmbedderFactoryContext {
  config: LociConfig;
  /** Environment to read API keys from; never stored. */
  env: Record<string, string | undefined>;
  /**
   * The embedder id a store recorded (`ollama:nomic-embed-text@768`): when it names the same
   * provider and model, its size is used instead of asking the model (no network to resolve).
   */
  recordedEmbedderId?: string;
}

type EmbedderFactory = (modelId: string | undefined, context: EmbedderFactoryContext) => Promise<EmbeddingModel>;

const factories = new Map<string, { describe: string; create: EmbedderFactory }>();

/** Adapters register themselves by provider name (`openai`, `static`, …). */
export function registerEmbedder(provider: string, describe: string, create: EmbedderFactory): void {
  factories.set(provider, { describe, create });
}

export function listEmbedders(): Array<{ provider: string; describe: string }> {
  return [...factories.entries()].map(([provider, { describe }]) => ({ provider, describe }));
}

/**
 * Resolves an embedder spec (`none`, `static`, `openai:text-embedding-3-small`,
 * `transformers:Xenova/all-MiniLM-L6-v2`) to a model; `none` means lexical only.
 */
export async function resolveEmbedder(spec: string, context: EmbedderFactoryContext): Promise<EmbeddingModel | undefined> {
  const trimmed = spec.trim();
  if (trimmed === '' || trimmed === 'none') return undefined;
  const { provider, modelId } = specParts(trimmed);
  const factory = factories.get(provider);
  if (!factory) throw unknownEmbedder(trimmed) as LociError;
  return factory.create(modelId, context);
}

/** `provider:model` → its parts (`static` alone: no model id). */
function specParts(spec: string): { provider: string; modelId: string | undefined } {
  const separator = spec.indexOf(':');
  return separator === -1 ? { provider: spec, modelId: undefined } : { provider: spec.slice(0, separator), modelId: spec.slice(separator + 1) || undefined };
}

/** The error a spec naming no registered provider gets (`sttaic`), without setting anything up; undefined for a known one or `none`. */
export function unknownEmbedder(spec: string): LociError | undefined {
  const trimmed = spec.trim();
  if (trimmed === '' || trimmed === 'none' || factories.has(specParts(trimmed).provider)) return undefined;
  const providers = ['none', ...factories.keys()];
  const known = providers.join(', ');
  const { provider, modelId } = specParts(trimmed);
  const meant = meantKey(provider, providers);
  const suggestion = meant === undefined ? '' : ` Did you mean "${modelId === undefined || meant === 'none' ? meant : `${meant}:${modelId}`}"?`;
  return new LociError('EMBEDDER_UNKNOWN', `Unknown embedder "${spec}".${suggestion} Known providers: ${known}.`, { details: { spec, known, ...(meant ? { meant } : {}) } });
}

/**
 * The one way an engine or the indexing worker turns what the user asked for (a spec, or a
 * model object passed to the library) into a model and the spec recorded in the index.
 */
export async function resolveRequestedEmbedder(requested: string | EmbeddingModel, context: EmbedderFactoryContext): Promise<{ model: EmbeddingModel | undefined; spec: string }> {
  if (typeof requested !== 'string') return { model: requested, spec: `${requested.provider}:${requested.modelId}` };
  return { model: await resolveEmbedder(requested, context), spec: requested };
}
