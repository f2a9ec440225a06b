// `loci index` on hostile trees and under signals, through the built CLI: it must never hang
// on what a folder contains, and SIGTERM/SIGINT must always end it with a sound store.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath } from '../support/run-cli.js';

let workspace: string;
const unix = process.platform !== 'win32';

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-interrupt-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
}

function start(args: string[], cwd: string): Started {
  const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls up to `steps` × 100 ms; true once `done` holds. A bound on steps, not a timing assertion. */
async function within(steps: number, done: () => boolean): Promise<boolean> {
  for (let step = 0; step < steps && !done(); step++) await pause(100);
  return done();
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Waits for the child to end; a child still running after the bound is killed and reported as hung. */
async function ended(child: ChildProcess, steps: number): Promise<{ hung: boolean; code: number | null; signal: NodeJS.Signals | null }> {
  const finished = await within(steps, () => exited(child));
  if (!finished) {
    child.kill('SIGKILL');
    await within(50, () => exited(child));
  }
  return { hung: !finished, code: child.exitCode, signal: child.signalCode };
}

describe.runIf(unix)('loci index cannot be hung by a folder, and always stops on a signal', () => {
  it('finishes on a tree whose .gitignore and .lociignore are FIFOs, reporting both', async () => {
    const repo = join(workspace, 'fifo');
    await mkdir(join(repo, 'sub'), { recursive: true });
    await writeFile(join(repo, 'a.ts'), 'export const alpha = 1;\n');
    await writeFile(join(repo, 'sub', 'b.ts'), 'export const beta = 2;\n');
    execFileSync('mkfifo', [join(repo, '.gitignore'), join(repo, 'sub', '.lociignore')]);
    const run = start([cliPath, 'index', repo, '--embedder', 'none', '--json'], workspace);
    const outcome = await ended(run.child, 600);
    expect(outcome).toEqual({ hung: false, code: 0, signal: null });
    const summary = JSON.parse(run.stdout()) as { files: { indexed: number }; skipped: Record<string, number>; warnings: string[] };
    expect(summary.files.indexed).toBe(2);
    expect(summary.skipped['special-file']).toBe(2);
    expect(summary.warnings.filter((warning) => warning.includes('not a regular file'))).toHaveLength(2);
  }, 90_000);

  it('stops a long run on SIGTERM with exit code 130, leaving a store that passes integrity_check and resumes', async () => {
    const repo = join(workspace, 'long');
    await mkdir(join(repo, 'src'), { recursive: true });
    for (let file = 0; file < 2000; file++) {
      const body = Array.from({ length: 20 }, (_, line) => `  const value${line} = input.length * ${line} + ${file};`).join('\n');
      await writeFile(join(repo, 'src', `module${file}.ts`), `export function handle${file}(input: string): number {\n${body}\n  return value19;\n}\n`);
    }
    const database = join(repo, '.loci', 'index.db');
    const run = start([cliPath, 'index', repo, '--embedder', 'none', '--json'], workspace);
    // Signal once the store exists and the run is under way.
    expect(await within(600, () => existsSync(database) || exited(run.child))).toBe(true);
    expect(exited(run.child)).toBe(false);
    run.child.kill('SIGTERM');
    const outcome = await ended(run.child, 300);
    expect(outcome.hung).toBe(false);
    // Stopped gracefully (130), or at the stop deadline by the re-raised signal: never left running.
    expect(outcome.code === 130 || outcome.signal === 'SIGTERM').toBe(true);
    // A graceful stop says how far it got.
    if (outcome.code === 130) expect(run.stderr()).toMatch(/Stopped (after \d+ of 2000 files; those are in the index|before any file was indexed)/);
    const db = new Database(database, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    const again = start([cliPath, 'index', repo, '--embedder', 'none', '--json'], workspace);
    expect(await ended(again.child, 1200)).toEqual({ hung: false, code: 0, signal: null });
    expect((JSON.parse(again.stdout()) as { files: { total: number } }).files.total).toBe(2000);
  }, 240_000);

  // The CLI's signal handling itself, around a task stuck in a read that never returns (a FIFO
  // with no writer holds a libuv thread, which also keeps process.exit() from finishing).
  const stuckTask = (deadlineMs: number) => `
    import { readFile } from 'node:fs/promises';
    import { withInterrupt } from ${JSON.stringify(join(cliPath, '..', 'interrupt.js'))};
    const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() };
    // 'ready' once the task runs: the signal handlers are installed by then (printed before them, a
    // signal sent at once could find the default action still in place and end the process silently).
    await withInterrupt(io, () => { console.log('ready'); return readFile(process.argv[1], 'utf8'); }, { stopDeadlineMs: ${deadlineMs} });
  `;

  it('ends a task stuck in a blocking read at the stop deadline after one SIGTERM', async () => {
    const fifo = join(workspace, 'stuck-term');
    execFileSync('mkfifo', [fifo]);
    const run = start(['--input-type=module', '-e', stuckTask(1000), fifo], workspace);
    expect(await within(300, () => run.stdout().includes('ready'))).toBe(true);
    run.child.kill('SIGTERM');
    const outcome = await ended(run.child, 300);
    expect(outcome).toEqual({ hung: false, code: null, signal: 'SIGTERM' });
    expect(run.stderr()).toMatch(/Stopping after the current file[\s\S]*quitting now/);
  }, 60_000);

  it('ends a task stuck in a blocking read at once on a second Ctrl-C', async () => {
    const fifo = join(workspace, 'stuck-int');
    execFileSync('mkfifo', [fifo]);
    const run = start(['--input-type=module', '-e', stuckTask(600_000), fifo], workspace);
    expect(await within(300, () => run.stdout().includes('ready'))).toBe(true);
    run.child.kill('SIGINT');
    expect(await within(100, () => run.stderr().includes('Stopping after the current file'))).toBe(true);
    run.child.kill('SIGINT');
    const outcome = await ended(run.child, 300);
    expect(outcome).toEqual({ hung: false, code: null, signal: 'SIGINT' });
  }, 60_000);

  it('prints the output of a task that finished as the stop came, and still exits 130', async () => {
    // The task sees the request only when it is already done (the last file was in flight).
    const finishing = `
      import { withInterruptReport } from ${JSON.stringify(join(cliPath, '..', 'interrupt.js'))};
      const io = { stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() };
      const busy = setInterval(() => {}, 1_000);
      const task = (signal) => { console.log('ready'); return new Promise((resolve) => signal.addEventListener('abort', () => setTimeout(() => { clearInterval(busy); resolve({ files: 3 }); }, 50))); };
      try {
        await withInterruptReport(io, task, (value) => console.log('report', JSON.stringify(value)));
        process.exitCode = 0;
      } catch (error) {
        console.error(error.code, error.message);
        process.exitCode = 130;
      }
    `;
    const run = start(['--input-type=module', '-e', finishing], workspace);
    expect(await within(300, () => run.stdout().includes('ready'))).toBe(true);
    run.child.kill('SIGINT');
    expect(await ended(run.child, 300)).toEqual({ hung: false, code: 130, signal: null });
    expect(run.stdout()).toContain('report {"files":3}');
    expect(run.stderr()).toContain('ABORTED Stopped on request as the work finished');
  }, 60_000);
});
