import { spawn, type ChildProcess } from 'node:child_process';
import { cliPath } from './run-cli.js';

export interface RunningServer {
  process: ChildProcess;
  /** http://127.0.0.1:PORT, as the server announced it. */
  base: string;
  /** Everything the server has written to stderr so far (for a failing test's message). */
  log: () => string;
}

/** Starts `loci serve ARGS` (port 0 = any free one) and resolves once it says where it listens. */
export async function startServer(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<RunningServer> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0', ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env } });
  let seen = '';
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${seen}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${seen}`));
    });
  });
  return { process: child, base, log: () => seen };
}

/**
 * Stops a server and waits until it has exited (a closing server saves its index files into
 * the store folder; removing the folder under it would race), bounded: SIGKILL after 10 s.
 */
export async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
