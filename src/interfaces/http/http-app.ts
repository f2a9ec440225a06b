import { timingSafeEqual } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { timeout } from 'hono/timeout';
import { z } from 'zod';
import { buildContext, type ContextOptions } from '../../context/build-context.js';
import { isLociError, type ErrorCategory } from '../../errors/index.js';
import { LOCI_VERSION } from '../../version.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../shared/json-limits.js';
import { DEFAULT_CONSOLE_DIR, isConsolePath, registerConsoleRoutes } from './console-routes.js';
import { registerInspectRoutes } from './inspect-routes.js';
import { registerKnowledgeRoutes } from './knowledge-routes.js';
import { registerMemoryRoutes } from './memory-routes.js';
import { queryGuard } from './query-guard.js';
import { parseBody, stripUndefined } from './request.js';
import type { Roots } from '../shared/roots.js';
import { redactPaths } from '../shared/wire-paths.js';
import { openApiDocument } from './openapi.js';
import { contextBody, searchBody, symbolBody } from './schemas.js';
import { createHostMatcher, serverPortOf, validateToken, webGuard, type HostPolicy } from './web-guard.js';

export interface HttpAppOptions {
  roots: Roots;
  /** Bearer token required on every request except /health (when set). */
  token?: string;
  /** Largest accepted request body (default 1 MiB); query routes take less (see routeBodyBytes). */
  maxBodyBytes?: number;
  /** Which Host and Origin values are served (default: loopback names only). */
  hosts?: HostPolicy;
  /** Longest time one /v1 request may take before a 503 answer (default 30 s). */
  requestTimeoutMs?: number;
  /** The built web console served at `/` (default dist/console; false: no console). */
  consoleDir?: string | false;
}

/** Query routes carry a query and a few options: a bigger body is not a real request. */
const routeBodyBytes = { query: 64 * 1024, context: 256 * 1024, mcp: 512 * 1024 } as const;

const statusOf: Record<ErrorCategory, 400 | 404 | 409 | 502 | 503 | 501 | 500> = {
  usage: 400,
  'not-found': 404,
  conflict: 409,
  provider: 502,
  aborted: 503,
  unsupported: 501,
  internal: 500,
};

/**
 * The HTTP API (and the MCP streamable-HTTP endpoint at /mcp) over the served roots.
 * Errors are JSON `{"error":{"code","message","hint"}}` with a status from the error's category.
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const { roots } = options;
  if (options.token !== undefined) validateToken(options.token);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const hosts = createHostMatcher(options.hosts ?? {});
  const app = new Hono();

  // The one place HTTP errors are put on the wire: no absolute paths of this machine leave it.
  const wire = (text: string): string => redactPaths(text, roots.list());
  app.onError((error, c) => {
    roots.noteError(error);
    if (isLociError(error)) return c.json({ error: { code: error.code, message: wire(error.message), hint: wire(error.hint) } }, statusOf[error.category]);
    if (error instanceof HTTPException && error.status === 503)
      return c.json({ error: { code: 'TIMEOUT', message: error.message, hint: 'Narrow the request (fewer results, a smaller token budget) and retry.' } }, 503);
    return c.json({ error: { code: 'INTERNAL', message: wire(`Unexpected error: ${(error as Error).message}`) } }, 500);
  });
  app.use('*', webGuard(hosts));
  app.notFound((c) => {
    // A route that exists with other methods (GET /v1/search): 405 and the methods it takes.
    const allowed = methodsOf(app, c.req.path);
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '));
      return c.json({ error: { code: 'METHOD_NOT_ALLOWED', message: `${c.req.path} does not take ${c.req.method}; it takes ${allowed.join(', ')}.`, hint: 'See /openapi.json for the routes.' } }, 405);
    }
    return c.json({ error: { code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}.`, hint: 'See /openapi.json for the routes.' } }, 404);
  });

  app.get('/health', (c) => c.json({ ok: true, version: LOCI_VERSION, roots: roots.list().map((root) => root.name) }));
  app.use('*', async (c, next) => {
    // The console's static files hold no data: the page loads, then asks for the token.
    if (!options.token || c.req.path === '/health' || isConsolePath(c.req.method, c.req.path)) return next();
    const header = c.req.header('authorization') ?? '';
    // The scheme's name is case-insensitive (RFC 9110): "bearer" and "BEARER" are Bearer.
    const scheme = /^bearer +/i.exec(header);
    const given = Buffer.from(scheme ? header.slice(scheme[0].length) : '');
    const expected = Buffer.from(options.token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return c.json({ error: { code: 'UNAUTHORIZED', message: 'Missing or wrong bearer token.', hint: 'Send Authorization: Bearer <token> (the --token the server was started with).' } }, 401);
    }
    return next();
  });
  const limit = (bytes: number): MiddlewareHandler => {
    const maxSize = Math.min(bytes, maxBodyBytes);
    return bodyLimit({
      maxSize,
      onError: (c) =>
        c.json(
          {
            error: {
              code: 'PAYLOAD_TOO_LARGE',
              message: `Request body over ${maxSize} bytes.`,
              hint: 'Send less in one request (split a batch of records, or load a knowledge file by path instead of its text).',
            },
          },
          413,
        ),
    });
  };
  app.use('*', limit(maxBodyBytes));
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  app.use('/v1/*', async (c, next) => {
    // The server's own time for the request, for the console and for bench/console-search.mjs.
    const started = performance.now();
    await next();
    c.res.headers.set('server-timing', `app;dur=${(performance.now() - started).toFixed(2)}`);
  });
  app.use(
    '/v1/*',
    timeout(requestTimeoutMs, () => new HTTPException(503, { message: `The request took longer than ${requestTimeoutMs} ms.` })),
  );
  for (const path of ['/v1/search', '/v1/symbols', '/v1/memory/recall', '/v1/index', '/v1/knowledge/:agent/search']) app.post(path, limit(routeBodyBytes.query));
  app.post('/v1/context', limit(routeBodyBytes.context));
  // MCP tool arguments are small (the largest, remember's text, is capped at 100,000 characters).
  app.post('/mcp', limit(routeBodyBytes.mcp));

  // After the token check: a caller without the token learns nothing from the guard's answers.
  app.use('*', queryGuard(openApiDocument().paths));
  app.get('/openapi.json', (c) => c.json(openApiDocument()));

  app.post('/v1/search', async (c) => {
    const body = await parseBody(c, searchBody);
    const { root, query, ...rest } = body;
    // A caller that hangs up (search as you type: each keystroke replaces the last request) stops the work.
    const response = await roots.get(root).loci.search(query, { ...stripUndefined(rest), signal: c.req.raw.signal });
    return c.json({ results: response.results, retrieval: response.retrieval, warnings: response.warnings, degraded: response.degraded, degradedParts: response.degradedParts });
  });

  app.post('/v1/symbols', async (c) => {
    const { root, name, ...rest } = await parseBody(c, symbolBody);
    const response = await roots.get(root).loci.findSymbol(name, stripUndefined(rest));
    return c.json({ results: response.results, warnings: response.warnings });
  });

  app.post('/v1/context', async (c) => {
    const body = await parseBody(c, contextBody);
    const { root, question, ...rest } = body;
    const loci = roots.get(root).loci;
    // conversationId: the budgeted history goes into the prompt as `loci ask` puts it; an unknown conversation has none.
    const options = { ...stripUndefined(rest), signal: c.req.raw.signal } as ContextOptions;
    const built = await buildContext(loci, question, options);
    return c.json({
      tokens: built.tokens,
      prompt: built.prompt,
      messages: built.messages,
      sources: built.sources,
      unit: built.unit,
      tokenizer: built.tokenizer,
      mode: built.mode,
      skipped: built.skipped,
      packing: built.packing,
      ...(built.conversation ? { conversation: built.conversation } : {}),
      warnings: built.warnings,
      degraded: built.degraded,
      degradedParts: built.degradedParts,
    });
  });

  app.post('/v1/index', async (c) => {
    const body = await parseBody(c, z.strictObject({ root: z.string().optional() }), true);
    const root = roots.get(body.root);
    return c.json({ root: root.name, indexing: roots.startIndexing(root) }, 202);
  });
  app.get('/v1/index', async (c) => {
    const root = roots.get(c.req.query('root'));
    const status = await root.loci.status({ checkChanges: false }).catch((error: unknown) => {
      if (isLociError(error) && error.code === 'INDEX_NOT_FOUND') return undefined;
      throw error;
    });
    return c.json({ root: root.name, path: root.path, indexing: root.indexing, files: status?.files ?? 0, chunks: status?.chunks ?? 0, embedder: status?.embedder ?? null });
  });

  registerMemoryRoutes(app, roots);
  registerKnowledgeRoutes(app, roots);
  registerInspectRoutes(app, roots);
  registerConsoleRoutes(app, options.consoleDir ?? DEFAULT_CONSOLE_DIR);

  // MCP over streamable HTTP, stateless: one server and transport per request.
  // Stateless: no server-sent stream to open with GET, no session to end with DELETE. A 405
  // tells a client so (the SDK's client polled an empty 200 stream about once a second).
  app.on(['GET', 'DELETE'], '/mcp', (c) => {
    c.header('Allow', 'POST');
    return c.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `Method not allowed: this MCP endpoint is stateless and takes POST only, not ${c.req.method}.` } }, 405);
  });
  app.all('/mcp', async (c) => {
    // The body is read and parsed once here (the size limit above applies), checked for depth, then handed over parsed.
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      const text = await c.req.text();
      if (jsonDepthExceeds(text)) return c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels.` } }, 400);
      try {
        parsedBody = JSON.parse(text);
      } catch {
        return c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } }, 400);
      }
    }
    // The SDK's own DNS-rebinding check, on the same allow-list as the guard above.
    const allowedHosts = hosts.list(serverPortOf(c));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins: allowedHosts.flatMap((host) => [`http://${host}`, `https://${host}`]),
      maxRequestBodySize: Math.min(maxBodyBytes, routeBodyBytes.mcp),
    });
    const server = createMcpServer(roots);
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, parsedBody === undefined ? undefined : { parsedBody });
    } finally {
      void server.close();
    }
  });

  return app;
}

/** The app's handler routes as patterns (built once, at the first unmatched request: every route is registered by then). */
const routePatterns = new WeakMap<Hono, Array<{ method: string; pattern: RegExp }>>();

/** The methods the app's routes take at `path` (its handlers, not the middleware that runs for every method). */
function methodsOf(app: Hono, path: string): string[] {
  let patterns = routePatterns.get(app);
  if (!patterns) {
    patterns = app.routes
      .filter((route) => route.method !== 'ALL' && !route.path.includes('*'))
      .map((route) => ({
        method: route.method,
        pattern: new RegExp(
          `^${route.path
            .split('/')
            .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
            .join('/')}$`,
        ),
      }));
    routePatterns.set(app, patterns);
  }
  return [...new Set(patterns.filter(({ pattern }) => pattern.test(path)).map(({ method }) => method))];
}
