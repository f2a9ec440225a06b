import { LociError } from '../../errors/index.js';
import { sendJson } from '../../http-client/index.js';

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

export const EMBEDDER_ERRORS = { failed: 'EMBEDDER_FAILED', auth: 'EMBEDDER_AUTH' } as const;

/**
 * One embedding request through the shared HTTP client core (src/http-client): one
 * attempt, because embedMany retries whole batches (rate limits, server errors and timeouts
 * come back retryable; bad keys, unreachable hosts and malformed replies as clear errors).
 */
export function postJson(options: PostJsonOptions): Promise<unknown> {
  return sendJson({
    ...options,
    codes: EMBEDDER_ERRORS,
    unreachableHint: 'Check the base URL and that the server is running (e.g. `ollama serve`), or choose another embedder.',
    ...(options.apiKeyEnv ? { authHint: `Set a valid key in the ${options.apiKeyEnv} environment variable.` } : {}),
  });
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
