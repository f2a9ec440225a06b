// A git smart-HTTP server over TLS on 127.0.0.1 for tests: `git http-backend` behind a Node
// HTTPS server with a self-signed certificate made by openssl. It demands one Basic token
// and records the Authorization header of every request.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface HttpsGitServer {
  url: string;
  /** PEM file git must trust (http.sslCAInfo). */
  caFile: string;
  /** Authorization headers seen, one per request ('' when absent). */
  seen: string[];
  close(): Promise<void>;
}

export async function startHttpsGitServer(options: { projectRoot: string; certDir: string; token: string }): Promise<HttpsGitServer> {
  const key = join(options.certDir, 'key.pem');
  const cert = join(options.certDir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {
    stdio: 'ignore',
  });
  const expected = `Basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}`;
  const seen: string[] = [];
  const server: Server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
    const authorization = request.headers.authorization ?? '';
    seen.push(authorization);
    if (authorization !== expected) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end('unauthorized');
      return;
    }
    const url = new URL(request.url ?? '/', 'https://127.0.0.1');
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '',
        GIT_PROJECT_ROOT: options.projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: request.method ?? 'GET',
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
        REMOTE_USER: 'x-access-token',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    request.pipe(backend.stdin);
    const chunks: Buffer[] = [];
    backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    backend.on('close', () => {
      const output = Buffer.concat(chunks);
      const split = output.indexOf('\r\n\r\n');
      const headerText = output.subarray(0, split).toString('latin1');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of headerText.split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) headers[name] = value;
      }
      response.writeHead(status, headers).end(output.subarray(split + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caFile: cert,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
