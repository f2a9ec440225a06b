import type { z } from 'zod';
import type { BuiltContext, ContextPacking } from '../../src/context/build-context.js';
import type { IndexStatus } from '../../src/engine/status-types.js';
import type { SearchResult, RetrievalPath } from '../../src/retrieve/search-types.js';
import type { memoryHitSchema, memoryRecordSchema } from '../../src/interfaces/http/response-schemas.js';
import type { contextBody, forgetBody, recallBody, searchBody } from '../../src/interfaces/http/schemas.js';
import type { RootState } from '../../src/interfaces/shared/roots.js';

// Requests are typed by the API's own zod schemas, replies by the library's types and the
// response schemas /openapi.json is generated from: a renamed field fails the console's build.
export type SearchRequest = z.input<typeof searchBody>;
export type ContextRequest = z.input<typeof contextBody>;
export type RecallRequest = z.input<typeof recallBody>;
export type ForgetRequest = z.input<typeof forgetBody>;
export type MemoryRecord = z.infer<typeof memoryRecordSchema>;
export type MemoryHit = z.infer<typeof memoryHitSchema>;
export type { SearchResult, ContextPacking };
export type Indexing = RootState['indexing'];

export interface SearchReply {
  results: SearchResult[];
  retrieval: RetrievalPath;
  warnings: string[];
  degraded: boolean;
  degradedParts: string[];
}
export type ContextReply = Pick<BuiltContext, 'tokens' | 'prompt' | 'messages' | 'sources' | 'unit' | 'tokenizer' | 'mode' | 'skipped' | 'packing' | 'warnings' | 'degraded' | 'degradedParts'>;
export type IndexDetails = { root: string; indexed: false; indexing: Indexing } | ({ root: string; indexed: true; indexing: Indexing } & Omit<IndexStatus, 'root' | 'store'>);
export interface IndexProgress extends Indexing {
  elapsedMs: number;
  filesPerSecond: number;
  etaSeconds?: number;
}

/** An API error as the server words it: code, message and how to fix it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const TOKEN_KEY = 'loci.token';
let token: string | null = sessionStorage.getItem(TOKEN_KEY);
/** Called when the server says the token is missing or wrong; resolves with a new one, or null. */
let askToken: ((wrong: boolean) => Promise<string | null>) | undefined;

export function onTokenNeeded(ask: (wrong: boolean) => Promise<string | null>): void {
  askToken = ask;
}

export function setToken(value: string | null): void {
  token = value;
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export interface Timed<T> {
  data: T;
  /** The server's own time (Server-Timing), ms. */
  serverMs: number | undefined;
}

/** One API call, with the bearer token when the server has one (asked once, kept for the tab). */
export async function call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Timed<T>> {
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), ...(signal ? { signal } : {}) });
    if (response.status === 401 && askToken && attempt < 3) {
      const next = await askToken(Boolean(token));
      if (next === null) throw new ApiError(401, 'UNAUTHORIZED', 'This server needs its token.', 'Enter the --token the server was started with.');
      setToken(next);
      continue;
    }
    const timing = /app;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '');
    const data = (await response.json().catch(() => ({}))) as T & { error?: { code: string; message: string; hint?: string } };
    if (!response.ok) {
      const error = data.error ?? { code: `HTTP_${response.status}`, message: response.statusText };
      throw new ApiError(response.status, error.code, error.message, error.hint);
    }
    return { data, serverMs: timing ? Number(timing[1]) : undefined };
  }
}

export const withRoot = (path: string, root: string, params: Record<string, string | number | undefined | string[]> = {}): string => {
  const query = new URLSearchParams();
  if (root) query.set('root', root);
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    for (const one of Array.isArray(value) ? value : [value]) query.append(key, String(one));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
};

/** Server-sent events over fetch (EventSource cannot send the token): calls onEvent per event until the stream ends. */
export async function streamEvents(path: string, onEvent: (event: string, data: unknown) => void, signal?: AbortSignal): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { headers, ...(signal ? { signal } : {}) });
  if (!response.ok || !response.body) {
    const data = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string; hint?: string } };
    throw new ApiError(response.status, data.error?.code ?? `HTTP_${response.status}`, data.error?.message ?? response.statusText, data.error?.hint);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length) onEvent(event, JSON.parse(data.join('\n')));
      end = buffer.indexOf('\n\n');
    }
  }
}
