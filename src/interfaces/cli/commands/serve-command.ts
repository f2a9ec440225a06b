import type { serve } from '@hono/node-server';
import type { Command } from 'commander';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { resolve } from 'node:path';
import { mcpClients, mcpConfigFor } from './mcp-config.js';
import { LociError } from '../../../errors/index.js';
import type { Roots } from '../../shared/roots.js';
import { loadCliConfig, resolveIndexedRoot, resolveRoot, type CliIo } from '../cli-context.js';

// The servers (Hono, the MCP SDK and everything they serve) load when `serve` or `mcp`
// runs, not for every other command: ~110 ms of each one-shot CLI call.

const collect = (value: string, previous: string[] = []) => [...previous, value];
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

async function servedRoots(io: CliIo, flags: { root?: string[]; config?: string }): Promise<Roots> {
  const paths = flags.root ? flags.root.map((root) => resolveRoot(io, root, { mustExist: true })) : [resolveIndexedRoot(io, undefined)];
  const { Roots } = await import('../../shared/roots.js');
  return new Roots(paths, (root) => loadCliConfig(io, root, [], flags.config), io.env);
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM). */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

export function registerServeCommands(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('Serve the HTTP API (and MCP at /mcp) over one or more indexed folders.')
    .option('--root <dir>', 'a folder to serve (repeatable; default the current one)', collect)
    .option('--host <host>', 'address to bind; anything but loopback needs --token', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '7411')
    .option('--token <token>', 'bearer token required on every request (or LOCI_TOKEN)')
    .option('--max-body <bytes>', 'largest request body', '1048576')
    .option('--allowed-host <name>', 'another Host name (or name:port) browsers may use to reach the server (repeatable; or LOCI_ALLOWED_HOSTS, comma-separated)', collect)
    .option('--index', 'start indexing every root in the background at startup')
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .action(async (flags: { root?: string[]; host: string; port: string; token?: string; maxBody: string; allowedHost?: string[]; index?: boolean; config?: string }) => {
      const token = flags.token ?? io.env.LOCI_TOKEN;
      if (token !== undefined) (await import('../../http/web-guard.js')).validateToken(token);
      if (!LOOPBACK.has(flags.host) && !token) {
        throw new LociError('INVALID_ARGUMENT', `Refusing to listen on ${flags.host} without a token: anyone who can reach it could read the index.`, {
          hint: 'Pass --token <secret> (or set LOCI_TOKEN), or bind 127.0.0.1.',
        });
      }
      const port = Number(flags.port);
      const maxBodyBytes = Number(flags.maxBody);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new LociError('INVALID_ARGUMENT', `--port must be 0–65535; got "${flags.port}".`);
      if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1024) throw new LociError('INVALID_ARGUMENT', `--max-body must be at least 1024 bytes; got "${flags.maxBody}".`);
      const [{ serve: startServer }, { createHttpApp }] = await Promise.all([import('@hono/node-server'), import('../../http/http-app.js')]);
      const roots = await servedRoots(io, flags);
      const allowedHosts = [...(flags.allowedHost ?? []), ...(io.env.LOCI_ALLOWED_HOSTS ?? '').split(',')].map((host) => host.trim()).filter(Boolean);
      const app = createHttpApp({ roots, maxBodyBytes, hosts: { boundHost: flags.host, allowedHosts }, ...(token ? { token } : {}) });
      const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
        const started = startServer({ fetch: app.fetch, hostname: flags.host, port }, (info) => {
          io.stderr.write(
            `loci serving ${roots
              .list()
              .map((root) => `${root.name}=${root.path}`)
              .join(', ')} on http://${flags.host}:${info.port}${token ? ' (bearer token required)' : ''}\n`,
          );
          resolve(started);
        });
        started.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, flags.host, port)));
      }).catch(async (error: unknown) => {
        await roots.close();
        throw error;
      });
      if (flags.index) for (const root of roots.list()) roots.startIndexing(root);
      // Each root's warm index is built now, not by the first search (the console's first keystroke).
      else for (const root of roots.list()) void root.loci.ready().catch(() => undefined);
      await untilStopped();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await roots.close();
    });

  program
    .command('mcp')
    .description('Run the MCP server over stdio (for Claude Code, Cursor, Continue).')
    .option('--root <dir>', 'a folder to serve (repeatable; default the current one)', collect)
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .option('--max-message <bytes>', 'largest MCP message; a longer one is refused with an error', '4194304')
    .option('--print-config <client>', `print the MCP server entry for ${mcpClients.join(', ')} (command, args, roots) and exit`)
    .action(async (flags: { root?: string[]; config?: string; maxMessage: string; printConfig?: string }) => {
      if (flags.printConfig !== undefined) {
        const roots = (flags.root && flags.root.length > 0 ? flags.root : [io.cwd]).map((root) => resolve(io.cwd, root));
        const { file, text } = mcpConfigFor(flags.printConfig, roots);
        io.stderr.write(`# put this in ${file}\n`);
        io.stdout.write(text);
        return;
      }
      const maxLineBytes = Number(flags.maxMessage);
      if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1024) throw new LociError('INVALID_ARGUMENT', `--max-message must be at least 1024 bytes; got "${flags.maxMessage}".`);
      const [{ StdioServerTransport }, { createMcpServer }, { createLineLimit }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../../mcp/mcp-server.js'),
        import('../../mcp/stdio-line-limit.js'),
      ]);
      const roots = await servedRoots(io, flags);
      const server = createMcpServer(roots);
      // Lines reach the SDK only when within the limit, so its buffer (which closes the server when it overflows) never fills.
      const input = process.stdin.pipe(createLineLimit({ maxLineBytes, respond: (line) => process.stdout.write(`${line}\n`), warn: (text) => io.stderr.write(`${text}\n`) }));
      const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: maxLineBytes * 2 + 1024 });
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve();
        process.stdin.once('end', () => resolve());
      });
      await server.connect(transport);
      const requests = answeredRequests(transport);
      // A client that writes its requests and closes its end (`printf … | loci mcp`) still gets every answer.
      const drained = closed.then(() => requests.drained());
      await Promise.race([drained, untilStopped()]);
      await server.close();
      // Stopped by a signal while the client still holds stdin open: an open stdin would keep the process alive.
      input.destroy();
      process.stdin.destroy();
      await roots.close();
    });
}

/**
 * Requests the server has been sent and not yet answered: stdin's end waits for them (a client
 * piping its requests in saw only the first answer). The SDK's handlers stay as they are; this
 * only watches what passes through the transport.
 */
function answeredRequests(transport: { onmessage?: ((message: JSONRPCMessage, extra?: never) => void) | undefined; send(message: JSONRPCMessage, options?: never): Promise<void> }): {
  drained(): Promise<void>;
} {
  const pending = new Set<string | number>();
  let wake: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message) pending.add(message.id);
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      return await send(message, options);
    } finally {
      if (!('method' in message) && 'id' in message && message.id !== undefined && message.id !== null) pending.delete(message.id);
      if (pending.size === 0) wake?.();
    }
  };
  return {
    drained: () =>
      pending.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            wake = resolve;
          }),
  };
}

/** A listen failure as a one-line user error (a busy port is not a bug in loci). */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = `${host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new LociError('INVALID_ARGUMENT', `Port ${port} on ${host} is already in use.`, { hint: 'Stop the other server, or pass another --port (0 picks a free one).', cause: error });
    case 'EACCES':
    case 'EPERM':
      return new LociError('INVALID_ARGUMENT', `Not allowed to listen on ${where} (${error.code}).`, { hint: 'Ports below 1024 need privileges: pass --port 1024 or higher.', cause: error });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new LociError('INVALID_ARGUMENT', `Cannot listen on ${where}: the address is not one of this machine's (${error.code}).`, {
        hint: 'Pass --host 127.0.0.1, or an address of this machine.',
        cause: error,
      });
    default:
      return error;
  }
}
