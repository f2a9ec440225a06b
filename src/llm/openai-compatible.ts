import { LociError } from '../errors/index.js';
import type { ChatModel, ChatRequest, ChatResult } from './spec.js';

export interface OpenAICompatibleChatOptions {
  /** e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), http://localhost:12434/engines/v1 (Docker Model Runner). */
  baseUrl: string;
  model: string;
  /** The key itself; callers read it from the environment (LOCI_LLM_API_KEY), never from files. */
  apiKey?: string;
  /** Where the key came from, named in auth errors. */
  apiKeyEnv?: string;
  /** No reply headers within this long → retried; no new token for this long while streaming → error. */
  timeoutMs?: number;
  /** Attempts for 429, 5xx and timeouts before the first token (default 3). */
  maxAttempts?: number;
  /** Base delay of the exponential backoff (default 500 ms; tests use less). */
  retryBaseMs?: number;
  fetch?: typeof fetch;
}

class Retryable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * A chat client for any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Ollama,
 * Docker Model Runner, vLLM, LM Studio): streaming over server-sent events, timeouts,
 * retries with backoff and jitter before the first token, and abort.
 */
export function openAICompatibleChat(options: OpenAICompatibleChatOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const doFetch = options.fetch ?? fetch;
  const label = `chat model ${options.model} at ${options.baseUrl}`;

  async function open(request: ChatRequest, stream: boolean): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await openOnce(request, stream);
      } catch (error) {
        if (!(error instanceof Retryable)) throw error;
        if (attempt >= maxAttempts) {
          throw new LociError('LLM_FAILED', `${label} failed after ${attempt} attempts: ${error.message}`, { hint: 'Check that the server is up and not overloaded, then retry.' });
        }
        const backoff = error.retryAfterMs ?? (options.retryBaseMs ?? 500) * 2 ** (attempt - 1) * (0.5 + Math.random());
        await sleep(backoff, request.abortSignal);
      }
    }
  }

  async function openOnce(request: ChatRequest, stream: boolean): Promise<Response> {
    // The timeout covers the wait for headers; while streaming, each read has its own.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = request.abortSignal ? AbortSignal.any([request.abortSignal, timeout.signal]) : timeout.signal;
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        body: JSON.stringify({
          model: options.model,
          messages: request.messages,
          stream,
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
          ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
        }),
        signal,
      });
    } catch (error) {
      if (request.abortSignal?.aborted) throw new LociError('ABORTED', 'The request was cancelled.', { cause: error });
      if (timeout.signal.aborted) throw new Retryable(`no reply within ${timeoutMs} ms`);
      const code = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new LociError('LLM_FAILED', `Cannot reach ${label} (${code}).`, { hint: 'Check LOCI_LLM_BASE_URL and that the server is running.' });
    } finally {
      clearTimeout(timer);
    }
    if (response.status === 401 || response.status === 403) {
      throw new LociError('LLM_AUTH', `${label} refused the request (HTTP ${response.status}).`, {
        hint: `Set a valid key in ${options.apiKeyEnv ?? 'LOCI_LLM_API_KEY'}.`,
      });
    }
    if (response.status === 429 || response.status >= 500) {
      const body = await response.text().catch(() => '');
      throw new Retryable(`HTTP ${response.status} ${body.slice(0, 200)}`, retryAfter(response.headers.get('retry-after')));
    }
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      throw new LociError('LLM_FAILED', `${label} rejected the request (HTTP ${response.status}): ${body.slice(0, 300)}`);
    }
    return response;
  }

  return {
    specificationVersion: 'v1',
    provider: 'openai-compatible',
    modelId: options.model,

    async complete(request: ChatRequest): Promise<ChatResult> {
      const response = await open(request, false);
      let body: unknown;
      try {
        body = await response.json();
      } catch (error) {
        throw new LociError('LLM_FAILED', `${label} sent a reply that is not JSON.`, { cause: error });
      }
      const choice = (body as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: string }> }).choices?.[0];
      if (typeof choice?.message?.content !== 'string') throw new LociError('LLM_FAILED', `${label} sent a malformed reply: choices[0].message.content is missing.`);
      const usage = (body as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
      return {
        text: choice.message.content,
        model: (body as { model?: string }).model ?? options.model,
        ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
        ...(usage ? { usage: { ...(usage.prompt_tokens !== undefined ? { promptTokens: usage.prompt_tokens } : {}), ...(usage.completion_tokens !== undefined ? { completionTokens: usage.completion_tokens } : {}) } } : {}),
      };
    },

    async *stream(request: ChatRequest): AsyncIterable<string> {
      const response = await open(request, true);
      if (!response.body) throw new LociError('LLM_FAILED', `${label} sent an empty stream.`);
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      let buffer = '';
      try {
        for (;;) {
          const { done, value } = await readWithTimeout(reader, timeoutMs, request.abortSignal, label);
          if (done || !value) break;
          buffer += decoder.decode(value, { stream: true });
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (!line.startsWith('data:')) continue;
            const data = line.slice(5).trim();
            if (data === '[DONE]') return;
            let event: unknown;
            try {
              event = JSON.parse(data);
            } catch {
              throw new LociError('LLM_FAILED', `${label} sent a malformed stream event: ${data.slice(0, 200)}`);
            }
            const error = (event as { error?: { message?: string } }).error;
            if (error) throw new LociError('LLM_FAILED', `${label} failed mid-answer: ${error.message ?? JSON.stringify(error)}`);
            const delta = (event as { choices?: Array<{ delta?: { content?: unknown } }> }).choices?.[0]?.delta?.content;
            if (typeof delta === 'string' && delta !== '') yield delta;
          }
        }
      } finally {
        reader.cancel().catch(() => undefined);
      }
    },
  };
}

async function readWithTimeout(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  label: string,
): Promise<{ done: boolean; value?: Uint8Array }> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      reader.read().catch((error: unknown) => {
        if (signal?.aborted) throw new LociError('ABORTED', 'The request was cancelled.', { cause: error });
        throw new LociError('LLM_FAILED', `${label} broke off mid-answer (${(error as Error).message}).`, { cause: error });
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new LociError('LLM_FAILED', `${label} stopped sending for ${timeoutMs} ms mid-answer.`)), timeoutMs);
        if (signal) {
          onAbort = () => reject(new LociError('ABORTED', 'The request was cancelled.'));
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  }
}

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) ? Math.min(seconds * 1000, 30_000) : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LociError('ABORTED', 'The request was cancelled.'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new LociError('ABORTED', 'The request was cancelled.'));
    }, { once: true });
  });
}

/**
 * The chat model named by LOCI_LLM_BASE_URL, LOCI_LLM_MODEL and LOCI_LLM_API_KEY (or
 * config `llm`), or a clear error saying which to set.
 */
export function chatModelFromEnv(env: Record<string, string | undefined>, config: { baseUrl?: string | undefined; model?: string | undefined; timeoutMs?: number } = {}): ChatModel {
  const baseUrl = env.LOCI_LLM_BASE_URL ?? config.baseUrl;
  const model = env.LOCI_LLM_MODEL ?? config.model;
  if (!baseUrl || !model) {
    throw new LociError('LLM_NOT_CONFIGURED', `No chat model is configured (${!baseUrl ? 'LOCI_LLM_BASE_URL' : 'LOCI_LLM_MODEL'} is not set).`, {
      hint: 'Set LOCI_LLM_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) and LOCI_LLM_MODEL, plus LOCI_LLM_API_KEY if the server needs one.',
    });
  }
  const apiKey = env.LOCI_LLM_API_KEY;
  return openAICompatibleChat({ baseUrl, model, ...(apiKey ? { apiKey } : {}), apiKeyEnv: 'LOCI_LLM_API_KEY', ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}) });
}
