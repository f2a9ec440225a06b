import { LociError, type ErrorCode } from '../errors/index.js';
import { LOCI_VERSION } from '../version.js';
import { describeBody, redactUrl } from './error-body.js';
import { retryAfterMs } from './retry-after.js';
import { RetryableError } from './retry.js';

/** The codes one provider family's failures map to (embedders: EMBEDDER_*, chat and rerankers: LLM_*). */
export interface ProviderErrorCodes {
  /** Unreachable host, rejected request, malformed reply, attempts used up. */
  failed: ErrorCode;
  /** HTTP 401 or 403: a missing, wrong or revoked key. */
  auth: ErrorCode;
}

export interface HttpCallOptions {
  /** Who is called, for messages: `openai:text-embedding-3-small`, `chat model x at http://…`. */
  label: string;
  url: string;
  /** Sent as JSON. */
  body: unknown;
  headers?: Record<string, string>;
  /**
   * One attempt's limit: until the reply's headers arrive, and for JSON replies until the
   * whole body is read. A streamed body is then limited per read (readWithIdleTimeout).
   */
  timeoutMs: number;
  abortSignal?: AbortSignal;
  codes: ProviderErrorCodes;
  /** How to fix a refused key (names the environment variable). */
  authHint?: string;
  /** How to fix an unreachable host. */
  unreachableHint?: string;
  accept?: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
}

/** Network failures that a new connection may not meet again. Refused and unknown hosts fail at once. */
const TRANSIENT_NETWORK = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * One attempt of a JSON POST, reply parsed: a 2xx JSON body, or a LociError in the family's
 * codes, or a RetryableError (429, 408, 5xx, a timeout, a dropped connection) for
 * `withRetry` or the family's own retry loop (embedMany) to retry.
 */
export function sendJson(options: HttpCallOptions): Promise<unknown> {
  return attempt(options, async (response, text) => {
    const body = await text();
    try {
      return JSON.parse(body) as unknown;
    } catch (error) {
      throw new LociError(options.codes.failed, `${options.label} sent a reply that is not JSON: ${describeBody(body)}`, { cause: error, details: { status: response.status } });
    }
  });
}

/**
 * One attempt of a POST whose 2xx reply is returned unread (for streams). The attempt's
 * timeout covers the wait for the headers only; the caller's abort still ends the body.
 */
export function openResponse(options: HttpCallOptions): Promise<Response> {
  return attempt(options, async (response) => response);
}

async function attempt<T>(options: HttpCallOptions, read: (response: Response, text: () => Promise<string>) => Promise<T>): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, timeout.signal]) : timeout.signal;
  try {
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: options.accept ?? 'application/json', 'user-agent': `loci/${LOCI_VERSION}`, ...options.headers },
        body: JSON.stringify(options.body),
        signal,
      });
    } catch (error) {
      throw networkFailure(error, options, timeout.signal, 'answer');
    }
    const text = async () => {
      try {
        return await response.text();
      } catch (error) {
        throw networkFailure(error, options, timeout.signal, 'finish its reply');
      }
    };
    if (!response.ok) throw statusFailure(response, await text().catch(() => ''), options);
    return await read(response, text);
  } finally {
    clearTimeout(timer);
  }
}

/** What a non-2xx status means: refused key, retry later, or a request the server will never accept. */
function statusFailure(response: Response, body: string, options: HttpCallOptions): Error {
  const { status } = response;
  const detail = describeBody(body);
  if (status === 401 || status === 403) {
    return new LociError(options.codes.auth, `${options.label} refused the request (HTTP ${status}): ${detail}`, {
      ...(options.authHint ? { hint: options.authHint } : {}),
      details: { status },
    });
  }
  if (status === 408 || status === 425 || status === 429 || (status >= 500 && status !== 501 && status !== 505)) {
    return new RetryableError(`answered HTTP ${status}: ${detail}`, retryAfterMs(response.headers), { status });
  }
  return new LociError(options.codes.failed, `${options.label} rejected the request (HTTP ${status}): ${detail}`, {
    ...(status === 404 ? { hint: `Check the base URL (${redactUrl(options.url)}) and the model name.` } : {}),
    details: { status },
  });
}

function networkFailure(error: unknown, options: HttpCallOptions, timeout: AbortSignal, doing: string): Error {
  if (error instanceof LociError) return error;
  if (options.abortSignal?.aborted) return new LociError('ABORTED', 'The operation was cancelled.', { cause: error });
  if (timeout.aborted) return new RetryableError(`did not ${doing} within ${options.timeoutMs} ms`, undefined, { cause: error });
  const code = causeCode(error);
  if (code && TRANSIENT_NETWORK.has(code)) return new RetryableError(`the connection failed (${code})`, undefined, { cause: error });
  return new LociError(options.codes.failed, `Cannot reach ${options.label} at ${redactUrl(options.url)} (${code ?? causeMessage(error)}).`, {
    cause: error,
    ...(options.unreachableHint ? { hint: options.unreachableHint } : {}),
    details: { url: redactUrl(options.url), ...(code ? { errno: code } : {}) },
  });
}

/** fetch wraps the system error: TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }). */
function causeCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && typeof current === 'object' && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** "fetch failed: bad port": the wrapper's message and its cause's. */
function causeMessage(error: unknown): string {
  const messages: string[] = [];
  for (let current: unknown = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !messages.includes(message)) messages.push(message);
  }
  return messages.join(': ') || 'unknown error';
}

/** The error for retries used up: the family's `failed` code, the last failure (its message names no caller), how many attempts. */
export function attemptsExhausted(codes: ProviderErrorCodes, label: string, hint?: string) {
  return (error: RetryableError, attempts: number): LociError =>
    new LociError(codes.failed, `${label} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${error.message}`, {
      cause: error,
      ...(hint ? { hint } : {}),
      details: { attempts, ...(error.status !== undefined ? { status: error.status } : {}) },
    });
}
