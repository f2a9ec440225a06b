import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'rate-limit' | 'server-error' | 'not-json' | 'missing-field' | 'unauthorized' | 'slow' | 'wrong-dimensions' | 'wrong-count';

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/**
 * A loopback server speaking the documented wire formats of OpenAI-compatible, Vertex AI,
 * Gemini and Voyage embeddings. Vectors are deterministic functions of the text (letter
 * trigram counts), so order and batching are checkable. Faults can be queued.
 */
export class FakeEmbeddingServer {
  readonly requests: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private server: Server | undefined;
  baseUrl = '';
  /** Each reply waits this long (to see concurrent requests overlap). */
  delayMs = 0;
  /** Requests being answered now, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;

  constructor(readonly dimensions = 16) {}

  /** Listens on 127.0.0.1, on `port` (to come back where a killed server was) or any free one. */
  async start(port = 0): Promise<this> {
    this.server = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      request.on('end', () => {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        this.requests.push({ path: request.url ?? '', headers: request.headers, body });
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const fault = this.faults.shift();
        const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
          const reply = () => {
            this.inFlight--;
            response.writeHead(status, { 'content-type': 'application/json', ...headers });
            response.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
          };
          if (this.delayMs > 0) setTimeout(reply, this.delayMs);
          else reply();
        };
        if (fault === 'rate-limit') return send(429, { error: 'slow down' }, { 'retry-after': '0' });
        if (fault === 'server-error') return send(503, { error: 'overloaded' });
        if (fault === 'unauthorized') return send(401, { error: { message: 'invalid api key' } });
        if (fault === 'not-json') return send(200, '<html>proxy error</html>');
        if (fault === 'slow') return void setTimeout(() => send(200, {}), 2000);
        const texts = this.textsOf(request.url ?? '', body);
        const size = fault === 'wrong-dimensions' ? this.dimensions + 1 : this.dimensions;
        const vectors = (fault === 'wrong-count' ? texts.slice(1) : texts).map((text) => fakeVector(text, size));
        send(200, fault === 'missing-field' ? { nothing: true } : this.reply(request.url ?? '', vectors));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  failNext(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  /** The port it listens on (to start a new server there after this one is killed). */
  get port(): number {
    return Number(new URL(this.baseUrl).port);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  private textsOf(path: string, body: Record<string, unknown>): string[] {
    if (path.includes(':predict')) return (body.instances as Array<{ content: string }>).map((instance) => instance.content);
    if (path.includes(':batchEmbedContents')) return (body.requests as Array<{ content: { parts: Array<{ text: string }> } }>).map((item) => item.content.parts[0]?.text ?? '');
    return body.input as string[];
  }

  private reply(path: string, vectors: number[][]): unknown {
    if (path.includes(':predict')) return { predictions: vectors.map((values) => ({ embeddings: { values, statistics: { token_count: 3 } } })) };
    if (path.includes(':batchEmbedContents')) return { embeddings: vectors.map((values) => ({ values })) };
    // OpenAI lists items with their index; send them reversed to prove order is restored.
    return { object: 'list', data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse(), usage: { total_tokens: 7 } };
  }
}

export function fakeVector(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const lower = ` ${text.toLowerCase()} `;
  for (let index = 0; index + 3 <= lower.length; index++) {
    let hash = 2166136261;
    for (let offset = 0; offset < 3; offset++) hash = Math.imul(hash ^ lower.charCodeAt(index + offset), 16777619);
    vector[Math.abs(hash) % dimensions]! += 1;
  }
  return vector;
}
