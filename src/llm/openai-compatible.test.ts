import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LociError } from '../errors/index.js';
import { chatModelFromEnv, openAICompatibleChat } from './openai-compatible.js';
import { FakeChatServer } from './test-support/fake-chat-server.js';

// No real model is reachable here: every call goes to a small OpenAI-compatible server on 127.0.0.1.
const server = new FakeChatServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
});

const model = (extra: Partial<Parameters<typeof openAICompatibleChat>[0]> = {}) =>
  openAICompatibleChat({ baseUrl: server.baseUrl, model: 'tiny', apiKey: 'sk-test', retryBaseMs: 5, timeoutMs: 1000, ...extra });

async function collect(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const delta of stream) text += delta;
  return text;
}

describe('OpenAI-compatible chat client', () => {
  it('streams deltas and completes, sending the key as a bearer token', async () => {
    server.answer = () => 'Streaming works [1].';
    const deltas: string[] = [];
    for await (const delta of model().stream({ messages: [{ role: 'user', content: 'hi' }] })) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join('')).toBe('Streaming works [1].');
    expect(server.requests[0]).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer sk-test', body: { model: 'tiny', stream: true } });
    const result = await model().complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(result).toMatchObject({ text: 'Streaming works [1].', finishReason: 'stop', usage: { promptTokens: 10, completionTokens: 5 } });
  });

  it('retries 5xx, 429 and slow replies, then succeeds', async () => {
    server.answer = () => 'ok';
    server.faults.push('server-error', 'rate-limit');
    expect(await collect(model().stream({ messages: [{ role: 'user', content: 'x' }] }))).toBe('ok');
    expect(server.requests).toHaveLength(3);
    server.faults.push('slow-headers');
    expect((await model({ timeoutMs: 300 }).complete({ messages: [{ role: 'user', content: 'x' }] })).text).toBe('ok');
  });

  it('fails clearly: bad key, persistent errors, bad JSON, a stalled stream, abort', async () => {
    server.faults.push('unauthorized');
    await expect(model().complete({ messages: [] })).rejects.toMatchObject({ code: 'LLM_AUTH' });
    server.faults.push('server-error', 'server-error', 'server-error');
    await expect(model().complete({ messages: [] })).rejects.toThrow(/failed after 3 attempts/);
    server.faults.push('bad-json');
    await expect(model().complete({ messages: [] })).rejects.toThrow(/not JSON/);
    server.answer = () => 'a longer answer that streams in several pieces';
    server.faults.push('stall-mid-stream');
    await expect(collect(model({ timeoutMs: 300 }).stream({ messages: [] }))).rejects.toThrow(/stopped sending/);
    const controller = new AbortController();
    server.faults.push('slow-headers');
    const pending = model().complete({ messages: [], abortSignal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(openAICompatibleChat({ baseUrl: 'http://127.0.0.1:9/v1', model: 'x', maxAttempts: 1 }).complete({ messages: [] })).rejects.toThrow(/Cannot reach/);
  });

  it('reads a plain JSON completion sent in answer to stream:true, and an empty one as empty', async () => {
    server.answer = () => 'Not streamed, still read.';
    server.faults.push('ignore-stream');
    expect(await collect(model().stream({ messages: [{ role: 'user', content: 'x' }] }))).toBe('Not streamed, still read.');
    expect(server.requests[0]?.body.stream).toBe(true);
    server.faults.push('ignore-stream', 'empty-answer');
    expect(await collect(model().stream({ messages: [] }))).toBe('Not streamed, still read.');
    expect(await collect(model().stream({ messages: [] }))).toBe('');
  });

  it('is configured from LOCI_LLM_* only, with a clear error when unset', () => {
    expect(() => chatModelFromEnv({})).toThrow(LociError);
    expect(() => chatModelFromEnv({ LOCI_LLM_BASE_URL: server.baseUrl })).toThrow(/LOCI_LLM_MODEL/);
    expect(chatModelFromEnv({ LOCI_LLM_BASE_URL: server.baseUrl, LOCI_LLM_MODEL: 'tiny' }).modelId).toBe('tiny');
  });
});
