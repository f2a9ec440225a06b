import { errorCodes, type ErrorCategory, type ErrorCode } from './codes.js';

export interface LociErrorOptions {
  /** Structured details a program can read (paths, keys, limits). */
  details?: Record<string, unknown>;
  /** Overrides the code's default hint when a more precise fix is known. */
  hint?: string;
  cause?: unknown;
}

/** The one error type loci throws. `code` is stable; `message` says what went wrong. */
export class LociError extends Error {
  override readonly name = 'LociError';
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly hint: string;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: LociErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.category = errorCodes[code].category;
    this.hint = options.hint ?? errorCodes[code].hint;
    this.details = options.details ?? {};
  }

  /** One line for a human: what went wrong, then how to fix it. */
  describe(): string {
    return `${this.message} ${this.hint}`;
  }

  toJSON(): { code: ErrorCode; message: string; hint: string; details: Record<string, unknown> } {
    return { code: this.code, message: this.message, hint: this.hint, details: this.details };
  }
}

export function isLociError(value: unknown): value is LociError {
  return value instanceof LociError;
}

/**
 * A model provider's failure (network, auth, quota, a bad reply): what a search, a context
 * build or a recall survives by leaving that provider out and saying so (`degraded`).
 */
export function isProviderFailure(value: unknown): value is LociError {
  return value instanceof LociError && value.category === 'provider';
}

/** Turns an AbortSignal's reason into a LociError so callers see one error type. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new LociError('ABORTED', 'The operation was cancelled.', { cause: signal.reason });
  }
}
