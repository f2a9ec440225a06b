import type { ChunkTermStats, LexicalField } from '../lexical/codec.js';

/**
 * The embedder spec, versioned like the AI SDK's provider specs: adapters only translate
 * one API; batching, concurrency, retries and caching live once in `embedMany`.
 */
export interface EmbeddingModel {
  readonly specificationVersion: 'v1';
  /** `openai`, `ollama`, `vertex`, `transformers`, `static`, … */
  readonly provider: string;
  readonly modelId: string;
  /** Output dimensions. */
  readonly dimensions: number;
  /** The largest batch one `doEmbed` call accepts. */
  readonly maxEmbeddingsPerCall: number;
  /** Whether several `doEmbed` calls may run at once (remote APIs: yes; local CPU models: no). */
  readonly supportsParallelCalls: boolean;
  /** How many calls embedMany keeps in flight when it may run several (user config `embedderOptions.concurrency`; default 4). */
  readonly maxParallelCalls?: number;
  /**
   * Changes whenever the adapter's processing changes the vectors (pooling, prefixes,
   * normalisation), so cached vectors from an older adapter are never reused.
   */
  readonly revision?: string;
  doEmbed(options: DoEmbedOptions): Promise<DoEmbedResult>;
  /**
   * Optional, for models that read loci's own tokens (lexical/tokenize.ts: the static
   * model): embeds texts from the term counts the indexer already made for them (one per
   * text, lexical/codec.ts), exactly as `doEmbed` embeds the texts. Only the counts of
   * `fields` are read (the embedded text is a chunk's path, heading and body; its symbols
   * field repeats names). The indexer thus tokenizes each chunk once and keeps no token list.
   */
  doEmbedTermStats?(options: { stats: ReadonlyArray<ChunkTermStats>; fields: ReadonlyArray<LexicalField>; purpose: EmbeddingPurpose }): Promise<DoEmbedResult>;
}

export type EmbeddingPurpose = 'document' | 'query';

export interface DoEmbedOptions {
  values: string[];
  /** Some models embed queries and documents differently (Voyage input_type, e5 prefixes). */
  purpose: EmbeddingPurpose;
  abortSignal?: AbortSignal;
}

export interface DoEmbedResult {
  embeddings: Array<Float32Array | number[]>;
  usage?: { tokens: number };
  warnings?: string[];
}

/** The id vectors are stored under: provider, model, dimensions and adapter revision. */
export function embedderIdOf(model: EmbeddingModel): string {
  const revision = model.revision ? `#${model.revision}` : '';
  return `${model.provider}:${model.modelId}@${model.dimensions}${revision}`;
}
