import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LociError } from '../errors/index.js';
import {
  attemptsExhausted,
  describeBody,
  openResponse,
  parseRetryAfter,
  readWithIdleTimeout,
  redactUrl,
  retryAfterMs,
  retryDelay,
  RetryableError,
  sendJson,
  withRetry,
  type HttpCallOptions,
  type RetryPolicy,
} from './index.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A loopback server answering each request with the next queued handler (then 200 {"ok":true}). */
class ScriptedServer {
  readonly handlers: Handler[] = [];
  requests = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        this.requests++;
        const handler = this.handlers.shift() ?? ((_, reply) => reply.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
        handler(request, response);
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/thing`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const status =
  (code: number, body: string, headers: Record<string, string> = {}): Handler =>
  (_, response) =>
    response.writeHead(code, headers).end(body);

const server = new ScriptedServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => {
  server.handlers.length = 0;
  server.requests = 0;
});

const codes = { failed: 'LLM_FAILED', auth: 'LLM_AUTH' } as const;
const call = (extra: Partial<HttpCallOptions> = {}): HttpCallOptions => ({ label: 'test model', url: server.url, body: { q: 1 }, timeoutMs: 2000, codes, authHint: 'Set TEST_KEY.', ...extra });
const policy = (extra: Partial<RetryPolicy> = {}): RetryPolicy => ({ maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 50, ...extra });

/** sendJson under withRetry, recording every wait it chose. */
async function retried(options: { call?: Partial<HttpCallOptions>; policy?: Partial<RetryPolicy>; abort?: AbortController } = {}) {
  const delays: number[] = [];
  const signal = options.abort ? { abortSignal: options.abort.signal } : {};
  const result = await withRetry(() => sendJson(call({ ...options.call, ...signal })), {
    policy: policy(options.policy),
    exhausted: attemptsExhausted(codes, 'test model'),
    onRetry: ({ delayMs }) => {
      delays.push(delayMs);
      options.abort?.abort();
    },
    ...signal,
  }).catch((error: unknown) => error);
  return { result, delays };
}

describe('Retry-After', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delta-seconds and HTTP dates (RFC 9110), and nothing else', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wednesday, 01-Jan-25 00:01:00 GMT', now)).toBe(60_000); // RFC 850 form
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0); // already past
    for (const bad of ['', 'soon', '-5', '1e3', undefined, null]) expect(parseRetryAfter(bad, now)).toBeUndefined();
  });

  it("prefers OpenAI's retry-after-ms", () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '9' }), now)).toBe(9000);
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('waits at least what the server asks, never more than the cap', () => {
    const capped = policy({ maxDelayMs: 30_000, baseDelayMs: 500 });
    expect(retryDelay(1, capped, 3_600_000, () => 0.5)).toBe(30_000);
    expect(retryDelay(1, capped, 2000, () => 0.5)).toBe(2000);
    expect(retryDelay(3, capped, undefined, () => 1)).toBe(2000); // 500 × 2²
    expect(retryDelay(12, capped, undefined, () => 1)).toBe(30_000);
  });

  it('is honoured through the client: seconds and dates, capped', async () => {
    server.handlers.push(status(429, '{"error":{"message":"slow down"}}', { 'retry-after': '3600' }));
    expect((await retried()).delays).toEqual([50]); // parsed (else ≤ 1 ms of backoff), then capped
    server.handlers.push(status(503, 'busy', { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() }));
    expect((await retried()).delays).toEqual([50]);
    server.handlers.push(status(503, 'busy', { 'retry-after': '1' }));
    const { result, delays } = await retried({ policy: { maxDelayMs: 5000 } });
    expect(delays).toEqual([1000]);
    expect(result).toEqual({ ok: true });
    expect(server.requests).toBe(6);
  });
});

describe('retries and their end', () => {
  it('retries 429, 5xx and 408, and succeeds', async () => {
    server.handlers.push(status(429, ''), status(500, ''), status(408, ''));
    const { result, delays } = await retried({ policy: { maxAttempts: 4 } });
    expect(result).toEqual({ ok: true });
    expect(delays).toHaveLength(3);
  });

  it('gives up after the attempt limit with the family code, the attempts and the last status', async () => {
    server.handlers.push(status(503, '{"error":"overloaded"}'), status(503, '{"error":"overloaded"}'));
    const { result } = await retried({ policy: { maxAttempts: 2 } });
    expect(result).toBeInstanceOf(LociError);
    expect(result).toMatchObject({ code: 'LLM_FAILED', message: 'test model failed after 2 attempts: answered HTTP 503: overloaded', details: { attempts: 2, status: 503 } });
  });

  it('stops at once when the caller aborts between attempts', async () => {
    server.handlers.push(status(503, 'busy', { 'retry-after': '10' }), status(503, 'busy'));
    const { result, delays } = await retried({ abort: new AbortController(), policy: { maxDelayMs: 30_000 } });
    expect(delays).toEqual([10_000]); // it was about to wait 10 s …
    expect(result).toMatchObject({ code: 'ABORTED' }); // … and did not
    expect(server.requests).toBe(1);
  });

  it('stops at once when the caller aborts mid-request', async () => {
    server.handlers.push(() => undefined); // never answers
    const controller = new AbortController();
    const pending = sendJson(call({ abortSignal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('times out waiting for headers, and for a JSON body that stalls, and retries both', async () => {
    server.handlers.push(() => undefined);
    const headers = await sendJson(call({ timeoutMs: 100 })).catch((error: unknown) => error);
    expect(headers).toBeInstanceOf(RetryableError);
    expect((headers as Error).message).toBe('did not answer within 100 ms');
    server.handlers.push((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"partial":');
    });
    const body = await sendJson(call({ timeoutMs: 150 })).catch((error: unknown) => error);
    expect((body as Error).message).toBe('did not finish its reply within 150 ms');
    server.handlers.push(() => undefined);
    const { result } = await retried({ call: { timeoutMs: 100 }, policy: { maxAttempts: 2 } });
    expect(result).toEqual({ ok: true });
  });

  it('retries a dropped connection, and fails at once on a refused one', async () => {
    server.handlers.push((request) => request.socket.destroy());
    const { result, delays } = await retried();
    expect(result).toEqual({ ok: true });
    expect(delays).toHaveLength(1);
    const closed = await closedPort();
    const refused = await retried({ call: { url: `http://127.0.0.1:${closed}/v1/thing`, unreachableHint: 'Start it.' } });
    expect(refused.delays).toEqual([]);
    expect(refused.result).toMatchObject({
      code: 'LLM_FAILED',
      hint: 'Start it.',
      message: `Cannot reach test model at http://127.0.0.1:${closed}/v1/thing (ECONNREFUSED).`,
      details: { errno: 'ECONNREFUSED' },
    });
  });
});

describe('error mapping', () => {
  it('401 and 403 are the auth code with the hint, never retried', async () => {
    for (const code of [401, 403]) {
      server.requests = 0;
      server.handlers.push(status(code, '{"error":{"message":"invalid api key"}}'));
      const { result } = await retried();
      expect(result).toMatchObject({ code: 'LLM_AUTH', hint: 'Set TEST_KEY.', message: `test model refused the request (HTTP ${code}): invalid api key`, details: { status: code } });
      expect(server.requests).toBe(1);
    }
  });

  it('other 4xx are the failed code, never retried; 404 says to check the URL and model', async () => {
    server.handlers.push(status(400, 'bad input'));
    expect((await retried()).result).toMatchObject({ code: 'LLM_FAILED', message: 'test model rejected the request (HTTP 400): bad input' });
    server.handlers.push(status(404, ''));
    expect((await retried()).result).toMatchObject({ code: 'LLM_FAILED', message: 'test model rejected the request (HTTP 404): (empty body)', hint: expect.stringContaining('model name') });
    expect(server.requests).toBe(2);
  });

  it('reads error bodies that are HTML, plain text, JSON of any usual shape, or hostile', async () => {
    server.handlers.push(status(502, '<html><head><style>h1{}</style></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>', { 'content-type': 'text/html' }));
    expect(((await retried({ policy: { maxAttempts: 1 } })).result as Error).message).toBe('test model failed after 1 attempt: answered HTTP 502: 502 Bad Gateway nginx');
    expect(describeBody('{"message":"quota exceeded"}')).toBe('quota exceeded');
    expect(describeBody('{"detail":"Invalid model"}')).toBe('Invalid model');
    expect(describeBody('{"error":{"code":400,"message":"Bad dims","status":"INVALID_ARGUMENT"}}')).toBe('Bad dims');
    expect(describeBody('{"unexpected":true}')).toBe('{"unexpected":true}');
    expect(describeBody('red \u001b[31malert\u001b[0m\r\nline')).toBe('red [31malert [0m line');
    expect(describeBody('x'.repeat(500))).toHaveLength(301);
  });

  it('a 200 that is not JSON is a clear error, not a crash', async () => {
    server.handlers.push(status(200, '<html>proxy login</html>', { 'content-type': 'text/html' }));
    await expect(sendJson(call())).rejects.toMatchObject({ code: 'LLM_FAILED', message: 'test model sent a reply that is not JSON: proxy login' });
  });

  it('never prints keys carried in URLs', () => {
    expect(redactUrl('https://user:secret@host/v1?key=abc&x=1')).toBe('https://user:***@host/v1?key=***&x=1');
  });
});

describe('streamed bodies', () => {
  it('ends a stream that stalls, and one the caller aborts', async () => {
    server.handlers.push((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    });
    const stalled = await openResponse(call());
    const pieces: string[] = [];
    const reading = (async () => {
      for await (const piece of readWithIdleTimeout(stalled, { label: 'test model', codes, idleTimeoutMs: 100 })) pieces.push(Buffer.from(piece).toString());
    })();
    await expect(reading).rejects.toMatchObject({ code: 'LLM_FAILED', message: 'test model stopped sending for 100 ms mid-reply.' });
    expect(pieces).toEqual(['data: 1\n\n']);

    server.handlers.push((_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
    });
    const controller = new AbortController();
    const open = await openResponse(call({ abortSignal: controller.signal }));
    const aborted = (async () => {
      for await (const _ of readWithIdleTimeout(open, { label: 'test model', codes, idleTimeoutMs: 5000, abortSignal: controller.signal })) controller.abort();
    })();
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
