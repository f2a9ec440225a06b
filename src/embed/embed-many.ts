import { LociError, throwIfAborted } from '../errors/index.js';
import { attemptsExhausted, MAX_RETRY_DELAY_MS, RetryableError, withRetry } from '../http-client/index.js';
import type { EmbeddingModel, EmbeddingPurpose } from './spec.js';

export interface EmbedManyOptions {
  model: EmbeddingModel;
  values: string[];
  purpose: EmbeddingPurpose;
  abortSignal?: AbortSignal;
  /** Concurrent calls for models that support it (default: the model's maxParallelCalls, else 4). */
  maxConcurrency?: number;
  /** Attempts per batch for retryable failures (429, 5xx, timeouts). */
  maxAttempts?: number;
  /** Base delay for exponential backoff with full jitter, in ms. */
  retryBaseDelayMs?: number;
  /** Called after each batch, for progress. */
  onBatch?: (done: number, total: number) => void;
}

export interface EmbedManyResult {
  embeddings: Float32Array[];
  warnings: string[];
  tokens: number;
}

/**
 * A failure an adapter marks as worth retrying (rate limit, server error, timeout): the
 * HTTP client core's RetryableError, under the name this family has always exported.
 */
export class RetryableEmbeddingError extends RetryableError {
  override readonly name: string = 'RetryableEmbeddingError';
}

/** Embeds any number of values: batches, bounded concurrency, retries with backoff. */
export async function embedMany(options: EmbedManyOptions): Promise<EmbedManyResult> {
  const { model, values } = options;
  const batchSize = Math.max(1, model.maxEmbeddingsPerCall);
  const batches: Array<{ start: number; values: string[] }> = [];
  for (let start = 0; start < values.length; start += batchSize) batches.push({ start, values: values.slice(start, start + batchSize) });
  const embeddings = new Array<Float32Array>(values.length);
  const warnings = new Set<string>();
  let tokens = 0;
  let done = 0;
  let next = 0;
  const concurrency = model.supportsParallelCalls ? Math.max(1, options.maxConcurrency ?? model.maxParallelCalls ?? 4) : 1;

  const worker = async (): Promise<void> => {
    while (next < batches.length) {
      const batch = batches[next++] as { start: number; values: string[] };
      throwIfAborted(options.abortSignal);
      const result = await callWithRetry(options, batch.values);
      if (result.embeddings.length !== batch.values.length) {
        throw new LociError('EMBEDDER_FAILED', `${model.provider}:${model.modelId} returned ${result.embeddings.length} embeddings for ${batch.values.length} inputs.`);
      }
      result.embeddings.forEach((embedding, offset) => {
        const vector = embedding instanceof Float32Array ? embedding : Float32Array.from(embedding);
        if (vector.length !== model.dimensions) {
          throw new LociError('DIMENSION_MISMATCH', `${model.provider}:${model.modelId} returned a ${vector.length}-dimensional vector; ${model.dimensions} were configured.`, {
            details: { expected: model.dimensions, received: vector.length },
          });
        }
        embeddings[batch.start + offset] = vector;
      });
      for (const warning of result.warnings ?? []) warnings.add(warning);
      tokens += result.usage?.tokens ?? 0;
      done += batch.values.length;
      options.onBatch?.(done, values.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
  return { embeddings, warnings: [...warnings], tokens };
}

/** One batch through the shared retry loop (src/http-client): backoff with full jitter, Retry-After honoured up to the cap. */
function callWithRetry(options: EmbedManyOptions, values: string[]) {
  const { model } = options;
  const label = `Embedding with ${model.provider}:${model.modelId}`;
  const policy = { maxAttempts: options.maxAttempts ?? 5, baseDelayMs: options.retryBaseDelayMs ?? 500, maxDelayMs: MAX_RETRY_DELAY_MS };
  return withRetry(
    async () => {
      try {
        return await model.doEmbed({ values, purpose: options.purpose, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) });
      } catch (error) {
        if (error instanceof LociError || error instanceof RetryableError) throw error;
        throw new LociError('EMBEDDER_FAILED', `${label} failed: ${(error as Error).message}`, { cause: error });
      }
    },
    { policy, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}), exhausted: attemptsExhausted({ failed: 'EMBEDDER_FAILED', auth: 'EMBEDDER_AUTH' }, label) },
  );
}
