import { LociError } from '../errors/index.js';
import { attemptsExhausted, DEFAULT_RETRY_POLICY, describeBody, openResponse, readWithIdleTimeout, redactUrl, sendJson, withRetry, type HttpCallOptions } from '../http-client/index.js';
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

const CHAT_ERRORS = { failed: 'LLM_FAILED', auth: 'LLM_AUTH' } as const;

interface ChatCompletion {
  model?: string;
  choices?: Array<{ message?: { content?: unknown }; finish_reason?: string }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

/**
 * A chat client for any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Ollama,
 * Docker Model Runner, vLLM, LM Studio): streaming over server-sent events, with timeouts,
 * retries before the first token and abort from the shared HTTP client core.
 */
export function openAICompatibleChat(options: OpenAICompatibleChatOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const label = `chat model ${options.model} at ${redactUrl(options.baseUrl)}`;
  const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: options.maxAttempts ?? 3, baseDelayMs: options.retryBaseMs ?? 500 };
  const hint = 'Check that the server is up and not overloaded, then retry.';

  const call = (request: ChatRequest, stream: boolean): HttpCallOptions => ({
    // The call's own messages name the URL it called (`Cannot reach chat model m at …/chat/completions`).
    label: `chat model ${options.model}`,
    url,
    timeoutMs,
    codes: CHAT_ERRORS,
    body: {
      model: options.model,
      messages: request.messages,
      stream,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    },
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : ({} as Record<string, string>),
    authHint: `Set a valid key in ${options.apiKeyEnv ?? 'LOCI_LLM_API_KEY'}.`,
    unreachableHint: 'Check LOCI_LLM_BASE_URL and that the server is running.',
    ...(request.abortSignal ? { abortSignal: request.abortSignal } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const retry = (request: ChatRequest) => ({ policy, exhausted: attemptsExhausted(CHAT_ERRORS, label, hint), ...(request.abortSignal ? { abortSignal: request.abortSignal } : {}) });

  return {
    specificationVersion: 'v1',
    provider: 'openai-compatible',
    modelId: options.model,

    async complete(request: ChatRequest): Promise<ChatResult> {
      const body = (await withRetry(() => sendJson(call(request, false)), retry(request))) as ChatCompletion;
      return completionResult(body, label, options.model);
    },

    async *stream(request: ChatRequest): AsyncIterable<string> {
      const response = await withRetry(() => openResponse({ ...call(request, true), accept: 'text/event-stream' }), retry(request));
      const iterator = decodeText(readWithIdleTimeout(response, { label, codes: CHAT_ERRORS, idleTimeoutMs: timeoutMs, ...(request.abortSignal ? { abortSignal: request.abortSignal } : {}) }));
      let head = '';
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        head += next.value;
        if (head.trim() !== '') break;
      }
      const rest: AsyncIterable<string> = { [Symbol.asyncIterator]: () => iterator };
      // Some servers ignore stream:true and answer 200 with one plain completion (JSON, whatever its content type).
      if (head.trimStart().startsWith('{')) {
        let text = head;
        for await (const piece of rest) text += piece;
        let body: ChatCompletion;
        try {
          body = JSON.parse(text) as ChatCompletion;
        } catch (error) {
          throw new LociError('LLM_FAILED', `${label} sent a reply that is neither an event stream nor JSON: ${describeBody(text)}`, { cause: error });
        }
        const { text: answer } = completionResult(body, label, options.model);
        if (answer !== '') yield answer;
        return;
      }
      yield* serverSentDeltas(prepend(head, rest), label);
    },
  };
}

async function* decodeText(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const chunk of chunks) yield decoder.decode(chunk, { stream: true });
  const tail = decoder.decode();
  if (tail) yield tail;
}

async function* prepend(head: string, rest: AsyncIterable<string>): AsyncGenerator<string> {
  if (head) yield head;
  yield* rest;
}

/** The text deltas of an OpenAI-style event stream, until `[DONE]` or the end of the body. */
async function* serverSentDeltas(pieces: AsyncIterable<string>, label: string): AsyncIterable<string> {
  let buffer = '';
  for await (const piece of pieces) {
    buffer += piece;
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
        throw new LociError('LLM_FAILED', `${label} sent a malformed stream event: ${describeBody(data, 200)}`);
      }
      const error = (event as { error?: { message?: string } }).error;
      if (error) throw new LociError('LLM_FAILED', `${label} failed mid-answer: ${describeBody(error.message ?? JSON.stringify(error))}`);
      const delta = (event as { choices?: Array<{ delta?: { content?: unknown } }> }).choices?.[0]?.delta?.content;
      if (typeof delta === 'string' && delta !== '') yield delta;
    }
  }
}

function completionResult(body: ChatCompletion, label: string, model: string): ChatResult {
  if (body?.error) throw new LociError('LLM_FAILED', `${label} answered with an error: ${describeBody(body.error.message ?? JSON.stringify(body.error))}`);
  const choice = body?.choices?.[0];
  if (typeof choice?.message?.content !== 'string') throw new LociError('LLM_FAILED', `${label} sent a malformed reply: choices[0].message.content is missing.`);
  const usage = body.usage;
  return {
    text: choice.message.content,
    model: body.model ?? model,
    ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
    ...(usage
      ? {
          usage: {
            ...(usage.prompt_tokens !== undefined ? { promptTokens: usage.prompt_tokens } : {}),
            ...(usage.completion_tokens !== undefined ? { completionTokens: usage.completion_tokens } : {}),
          },
        }
      : {}),
  };
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
