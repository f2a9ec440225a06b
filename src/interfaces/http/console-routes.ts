import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Context, Hono } from 'hono';
import { compiledModule } from '../../package-files.js';

/** Where `npm run build` puts the console (dist/console, beside dist/interfaces). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(compiledModule('console/'));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Only the console's own files, and only to this origin: no inline script, no other host
 * to load from or send to, no framing (clickjacking).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Uint8Array;
  gzip: Uint8Array | undefined;
  type: string;
  immutable: boolean;
}

/** The console's files, read once: a fixed set, so no request path ever reaches the file system. */
export function loadConsoleAssets(dir: string): Map<string, Asset> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        const type = TYPES[extname(name)] ?? 'application/octet-stream';
        const compressible = type.startsWith('text/') || type === 'image/svg+xml' || type === 'application/json';
        const url = `/${relative(dir, path).split(sep).join('/')}`;
        assets.set(url, { body, gzip: compressible && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined, type, immutable: url.startsWith('/assets/') });
      }
    }
  };
  walk(dir);
  return assets;
}

/** Paths the console answers without a token: its own static files, which hold no data. */
export function isConsolePath(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === '/' || path === '/index.html' || path.startsWith('/assets/') || path === '/favicon.svg');
}

/** The web console at `/` (built by `npm run build` into dist/console). */
export function registerConsoleRoutes(app: Hono, dir: string | false): void {
  const assets = dir === false ? undefined : loadConsoleAssets(dir);
  const serve = (c: Context, url: string) => {
    const asset = assets?.get(url);
    if (!asset) {
      if (!assets && (url === '/' || url === '/index.html')) {
        return c.json({ error: { code: 'NOT_FOUND', message: 'The web console is not built.', hint: 'Run npm run build (it builds dist/console), then restart loci serve.' } }, 404);
      }
      return c.json({ error: { code: 'NOT_FOUND', message: `No console file ${url.slice(0, 200)}.` } }, 404);
    }
    c.header('content-type', asset.type);
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    c.header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    c.header('vary', 'accept-encoding');
    if (asset.type.startsWith('text/html')) {
      c.header('content-security-policy', CONTENT_SECURITY_POLICY);
      c.header('x-frame-options', 'DENY');
    }
    const gzip = asset.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    if (gzip) c.header('content-encoding', 'gzip');
    return c.body((gzip ? asset.gzip : asset.body) as Uint8Array<ArrayBuffer>);
  };
  app.get('/', (c) => serve(c, '/index.html'));
  app.get('/index.html', (c) => serve(c, '/index.html'));
  app.get('/favicon.svg', (c) => serve(c, '/favicon.svg'));
  app.get('/assets/*', (c) => serve(c, c.req.path));
}
