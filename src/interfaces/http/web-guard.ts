import { networkInterfaces } from 'node:os';
import type { Context, MiddlewareHandler } from 'hono';
import { LociError } from '../../errors/index.js';

/** Shortest bearer token accepted: a short one is guessed by a local script in minutes. */
export const MIN_TOKEN_LENGTH = 16;

export interface HostPolicy {
  /** The address the server binds (its name is accepted in Host besides loopback). */
  boundHost?: string;
  /** More names for Host and Origin, from --allowed-host / LOCI_ALLOWED_HOSTS: `name` (the server's port) or `name:port`. */
  allowedHosts?: readonly string[];
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

export function validateToken(token: string): void {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new LociError('INVALID_ARGUMENT', `The bearer token is ${token.length} characters; it must be at least ${MIN_TOKEN_LENGTH}.`, {
      hint: 'Use a long random secret, e.g. --token "$(openssl rand -hex 24)" (or LOCI_TOKEN).',
    });
  }
}

const bracket = (name: string): string => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name);

function splitHost(host: string): { name: string; port: number | undefined } {
  const lower = host.trim().toLowerCase();
  const close = lower.startsWith('[') ? lower.indexOf(']') : -1;
  const colon = close >= 0 ? lower.indexOf(':', close) : lower.lastIndexOf(':');
  if (colon < 0 || (close < 0 && lower.indexOf(':') !== colon)) return { name: lower, port: undefined };
  const port = Number(lower.slice(colon + 1));
  return { name: lower.slice(0, colon), port: Number.isInteger(port) ? port : Number.NaN };
}

/**
 * Which Host values reach the API. A web page can point its own name at 127.0.0.1 (DNS
 * rebinding) and then read the API as "same origin"; its requests still carry its name
 * in Host, so only loopback names, the bound address and names the user allowed pass.
 */
export interface HostMatcher {
  matches(host: string | undefined, serverPort: number | undefined, defaultPort?: number): boolean;
  /** Every accepted Host value for a port, for the MCP transport's own DNS-rebinding check. */
  list(serverPort: number | undefined): string[];
}

export function createHostMatcher(policy: HostPolicy): HostMatcher {
  const names = new Set(LOOPBACK_NAMES);
  const exact = new Set<string>();
  if (policy.boundHost) {
    if (WILDCARD.has(policy.boundHost)) {
      // Bound to every interface: the machine's own addresses are its names.
      for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) names.add(bracket(address.address.toLowerCase()));
    } else names.add(bracket(policy.boundHost.toLowerCase()));
  }
  for (const entry of policy.allowedHosts ?? []) {
    const { name, port } = splitHost(entry);
    if (port === undefined) names.add(bracket(name));
    else exact.add(`${bracket(name)}:${port}`);
  }
  return {
    matches: (host, serverPort, defaultPort = 80) => {
      if (!host) return false;
      const { name, port } = splitHost(host);
      if (port !== undefined && exact.has(`${name}:${port}`)) return true;
      if (!names.has(name)) return false;
      return serverPort === undefined || (port ?? defaultPort) === serverPort;
    },
    list: (serverPort) => [...[...names].flatMap((name) => (serverPort === undefined ? [name] : serverPort === 80 ? [name, `${name}:80`] : [`${name}:${serverPort}`])), ...exact],
  };
}

/** The port this connection reached (undefined outside @hono/node-server, e.g. app.request in tests). */
export function serverPortOf(c: Context): number | undefined {
  const incoming = (c.env as { incoming?: { socket?: { localPort?: number } } } | undefined)?.incoming;
  return incoming?.socket?.localPort;
}

const refuse = (c: Context, status: 403 | 415, code: string, message: string, hint: string) => c.json({ error: { code, message, hint } }, status);

/**
 * Host allow-list, Origin check and JSON-only bodies, before anything else runs.
 * A browser page may send simple cross-site requests (text/plain, form bodies) without a
 * preflight; refusing every non-JSON body and every foreign Origin closes that door.
 */
export function webGuard(hosts: HostMatcher): MiddlewareHandler {
  const hostAllowed = hosts.matches;
  return async (c, next) => {
    const host = c.req.header('host');
    const port = serverPortOf(c);
    if (!hostAllowed(host, port)) {
      return refuse(c, 403, 'FORBIDDEN_HOST', `Host "${host ?? ''}" is not served here.`, 'Use http://127.0.0.1:<port>, or start the server with --allowed-host <name> to accept that name.');
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !originAllowed(origin, host as string, port, hostAllowed)) {
      return refuse(
        c,
        403,
        'FORBIDDEN_ORIGIN',
        `Requests from the web page at ${origin.slice(0, 200)} are refused.`,
        'Call the API from a local program, or allow that page with --allowed-host <name:port>.',
      );
    }
    const method = c.req.method;
    const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
    if ((method === 'POST' || method === 'PUT' || method === 'PATCH' || hasBody) && !isJson(c.req.header('content-type'))) {
      return refuse(c, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON.', 'Send Content-Type: application/json.');
    }
    return next();
  };
}

function originAllowed(origin: string, host: string, port: number | undefined, hostAllowed: HostMatcher['matches']): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and garbage are foreign
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.host === host.toLowerCase()) return true; // same origin (the Host itself passed the allow-list)
  return hostAllowed(url.host, port, url.protocol === 'https:' ? 443 : 80);
}

function isJson(contentType: string | undefined): boolean {
  const media = contentType?.split(';')[0]?.trim().toLowerCase();
  return media === 'application/json';
}
