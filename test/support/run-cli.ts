import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const cliPath = fileURLToPath(new URL('../../dist/interfaces/cli/main.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a user would: a separate process, its own cwd and environment. */
export function runLoci(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliRun> {
  if (!existsSync(cliPath)) throw new Error(`Build the CLI first (npm run build): ${cliPath} is missing.`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliPath, ...args],
      { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', HOME: options.cwd, ...options.env }, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
