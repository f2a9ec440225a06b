import { LociError, throwIfAborted } from '../errors/index.js';
import type { EmbeddingModel, EmbeddingPurpose } from './spec.js';

export interface EmbedManyOptions {
  model: EmbeddingModel;
  values: string[];
  purpose: EmbeddingPurpose;
  abortSignal?: AbortSignal;
  /** Concurrent calls for models that support it. */
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

/** A failure an adapter marks as worth retrying (rate limit, server error, timeout). */
export class RetryableEmbeddingError extends Error {
  override readonly name = 'RetryableEmbeddingError';
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
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
  const concurrency = model.supportsParallelCalls ? Math.max(1, options.maxConcurrency ?? 4) : 1;

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
          throw new LociError(
            'DIMENSION_MISMATCH',
            `${model.provider}:${model.modelId} returned a ${vector.length}-dimensional vector; ${model.dimensions} were configured.`,
            { details: { expected: model.dimensions, received: vector.length } },
          );
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

async function callWithRetry(options: EmbedManyOptions, values: string[]) {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const baseDelay = options.retryBaseDelayMs ?? 500;
  for (let attempt = 1; ; attempt++) {
    try {
      return await options.model.doEmbed({ values, purpose: options.purpose, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) });
    } catch (error) {
      if (options.abortSignal?.aborted) throwIfAborted(options.abortSignal);
      if (!(error instanceof RetryableEmbeddingError) || attempt >= maxAttempts) {
        if (error instanceof LociError) throw error;
        throw new LociError('EMBEDDER_FAILED', `Embedding with ${options.model.provider}:${options.model.modelId} failed after ${attempt} attempt(s): ${(error as Error).message}`, {
          cause: error,
        });
      }
      const backoff = Math.random() * baseDelay * 2 ** (attempt - 1); // full jitter
      await sleep(Math.max(error.retryAfterMs ?? 0, backoff), options.abortSignal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LociError('ABORTED', 'The operation was cancelled.', { cause: signal?.reason }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
