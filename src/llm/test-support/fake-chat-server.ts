import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `ignore-stream`: a plain JSON completion even when stream:true was asked (some servers do);
 * `empty-answer`: a well-formed reply with no text.
 */
export type ChatFault = 'server-error' | 'rate-limit' | 'unauthorized' | 'slow-headers' | 'stall-mid-stream' | 'bad-json' | 'ignore-stream' | 'empty-answer';

export interface ChatRequestRecord {
  path: string;
  body: { model?: string; messages?: Array<{ role: string; content: string }>; stream?: boolean; query?: string; documents?: string[] };
  authorization: string | undefined;
}

/**
 * A small OpenAI-compatible server on 127.0.0.1 for tests: /chat/completions (JSON or SSE
 * stream) and /rerank (Cohere and Voyage shapes). Replies come from `answer`; faults are
 * queued and used up one request at a time.
 */
export class FakeChatServer {
  readonly requests: ChatRequestRecord[] = [];
  readonly faults: ChatFault[] = [];
  answer: (request: ChatRequestRecord) => string = () => 'The answer is in [1].';
  private server: Server | undefined;
  private url = '';

  get baseUrl(): string {
    return this.url;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const record: ChatRequestRecord = { path: request.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), authorization: request.headers.authorization };
    this.requests.push(record);
    const fault = this.faults.shift();
    if (fault === 'server-error') return void response.writeHead(500).end('{"error":"boom"}');
    if (fault === 'rate-limit') return void response.writeHead(429, { 'retry-after': '0' }).end('{"error":"slow down"}');
    if (fault === 'unauthorized') return void response.writeHead(401).end('{"error":"bad key"}');
    if (fault === 'slow-headers') await new Promise((resolve) => setTimeout(resolve, 1500));
    if (fault === 'bad-json') return void response.writeHead(200, { 'content-type': 'application/json' }).end('not json');
    if (record.path.endsWith('/rerank')) return this.rerank(record, response);
    const text = fault === 'empty-answer' ? '' : this.answer(record);
    if (!record.body.stream || fault === 'ignore-stream') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ model: record.body.model, choices: [{ message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5 } }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const pieces = text.match(/.{1,4}/gs) ?? [];
    for (const [index, piece] of pieces.entries()) {
      response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
      if (fault === 'stall-mid-stream' && index === 1) return; // never ends
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    response.end('data: [DONE]\n\n');
  }

  private rerank(record: ChatRequestRecord, response: ServerResponse): void {
    const query = (record.body.query ?? '').toLowerCase().split(/\W+/).filter(Boolean);
    const scored = (record.body.documents ?? []).map((document, index) => ({
      index,
      relevance_score: query.filter((word) => document.toLowerCase().includes(word)).length / Math.max(1, query.length),
    }));
    scored.sort((a, b) => b.relevance_score - a.relevance_score);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(record.path.includes('voyage') ? { data: scored } : { results: scored }));
  }
}
