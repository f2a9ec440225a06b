import { LociError } from '../../errors/index.js';
import { RetryableEmbeddingError } from '../embed-many.js';

export interface PostJsonOptions {
  /** Who is being called, for messages: `openai:text-embedding-3-small`. */
  label: string;
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
  abortSignal?: AbortSignal;
  /** The environment variable the key came from, named in auth errors. */
  apiKeyEnv?: string;
}

/**
 * One JSON POST with the failure handling every remote adapter needs: rate limits, server
 * errors and timeouts become retryable (embedMany retries them with backoff); bad keys,
 * unreachable hosts and malformed replies become clear errors at once.
 */
export async function postJson(options: PostJsonOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(options.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
      body: JSON.stringify(options.body),
      signal,
    });
  } catch (error) {
    if (options.abortSignal?.aborted) throw new LociError('ABORTED', 'The operation was cancelled.', { cause: error });
    if (timeout.aborted) throw new RetryableEmbeddingError(`${options.label} did not answer within ${options.timeoutMs} ms`, undefined, { cause: error });
    const code = (error as { cause?: { code?: string } }).cause?.code ?? '';
    throw new LociError('EMBEDDER_FAILED', `Cannot reach ${options.label} at ${redact(options.url)} (${code || (error as Error).message}).`, {
      cause: error,
      hint: 'Check the base URL and that the server is running (e.g. `ollama serve`), or choose another embedder.',
    });
  }
  const text = await response.text();
  if (response.status === 401 || response.status === 403) {
    throw new LociError('EMBEDDER_AUTH', `${options.label} refused the request (HTTP ${response.status}): ${snippet(text)}`, {
      ...(options.apiKeyEnv ? { hint: `Set a valid key in the ${options.apiKeyEnv} environment variable.` } : {}),
      details: { status: response.status },
    });
  }
  if (response.status === 429 || response.status >= 500) {
    throw new RetryableEmbeddingError(`${options.label} answered HTTP ${response.status}: ${snippet(text)}`, retryAfterMs(response.headers.get('retry-after')));
  }
  if (!response.ok) {
    throw new LociError('EMBEDDER_FAILED', `${options.label} rejected the request (HTTP ${response.status}): ${snippet(text)}`, { details: { status: response.status } });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new LociError('EMBEDDER_FAILED', `${options.label} sent a reply that is not JSON: ${snippet(text)}`, { cause: error });
  }
}

/** Reads a vector out of a reply, or explains what was wrong with the reply. */
export function vectorFrom(value: unknown, label: string, where: string): number[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === 'number' && Number.isFinite(item))) {
    throw new LociError('EMBEDDER_FAILED', `${label} sent a malformed reply: ${where} is not a list of numbers.`);
  }
  return value as number[];
}

export function requireKey(env: Record<string, string | undefined>, name: string, label: string): string {
  const key = env[name];
  if (!key) {
    throw new LociError('EMBEDDER_AUTH', `${label} needs an API key, and ${name} is not set.`, { hint: `Export ${name} in the environment that runs loci.` });
  }
  return key;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.min(seconds * 1000, 60_000);
  const date = Date.parse(header);
  return Number.isFinite(date) ? Math.min(Math.max(0, date - Date.now()), 60_000) : undefined;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat || '(empty body)';
}

/** URLs may carry keys (Gemini's ?key=): never print them. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    for (const name of ['key', 'api_key', 'apikey', 'token']) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***');
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
