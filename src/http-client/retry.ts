import { LociError, throwIfAborted } from '../errors/index.js';

/** How a call is retried. One policy shape for every provider family. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retry). */
  maxAttempts: number;
  /** Base of the exponential backoff with full jitter: attempt n waits up to base × 2^(n−1). */
  baseDelayMs: number;
  /** No wait is longer than this, whether it comes from backoff or from a server's Retry-After. */
  maxDelayMs: number;
}

/**
 * The longest loci waits between two attempts. A server asking for more (Retry-After: 3600)
 * is retried after this long instead; the attempt limit still ends the call.
 */
export const MAX_RETRY_DELAY_MS = 30_000;

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: MAX_RETRY_DELAY_MS };

/** A failure worth another attempt: a rate limit, a server error, a timeout, a dropped connection. */
export class RetryableError extends Error {
  override readonly name: string = 'RetryableError';
  constructor(
    message: string,
    /** What the server asked for (Retry-After), uncapped; the policy caps it. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.status !== undefined) this.status = options.status;
  }

  /** The HTTP status, when the failure was an answer rather than a silence. */
  status?: number;
}

/** The wait before attempt `attempt + 1`: backoff with full jitter, at least the server's Retry-After, at most the cap. */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfter?: number, random: () => number = Math.random): number {
  const backoff = random() * policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(policy.maxDelayMs, Math.max(retryAfter ?? 0, backoff));
}

export interface WithRetryOptions {
  policy: RetryPolicy;
  abortSignal?: AbortSignal;
  /** The error thrown when the last attempt failed with a retryable error. */
  exhausted: (error: RetryableError, attempts: number) => Error;
  /** Told before each wait (progress messages, tests). */
  onRetry?: (event: { attempt: number; delayMs: number; error: RetryableError }) => void;
}

/**
 * Runs `attempt` until it succeeds, throws something not retryable, or the policy's
 * attempts are used up. The caller's abort ends it at once, also mid-wait.
 */
export async function withRetry<T>(attempt: (number: number) => Promise<T>, options: WithRetryOptions): Promise<T> {
  const maxAttempts = Math.max(1, Math.floor(options.policy.maxAttempts));
  for (let number = 1; ; number++) {
    throwIfAborted(options.abortSignal);
    try {
      return await attempt(number);
    } catch (error) {
      throwIfAborted(options.abortSignal); // the caller's cancel wins over whatever the attempt threw
      if (!(error instanceof RetryableError)) throw error;
      if (number >= maxAttempts) throw options.exhausted(error, number);
      const delayMs = retryDelay(number, options.policy, error.retryAfterMs);
      options.onRetry?.({ attempt: number, delayMs, error });
      await sleep(delayMs, options.abortSignal);
    }
  }
}

/** Waits, or rejects with ABORTED as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LociError('ABORTED', 'The operation was cancelled.', { cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LociError('ABORTED', 'The operation was cancelled.', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
