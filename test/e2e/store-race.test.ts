// Many processes opening one brand-new store at the same moment, through the built library:
// creation must be race-free (no "table meta already exists") and no write may be lost.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';

const PROCESSES = 40;
const PER_PROCESS = 25;
const child = fileURLToPath(new URL('../support/store-race-child.mjs', import.meta.url));
const distIndex = join(process.cwd(), 'dist/index.js');
let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-race-'));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

interface Outcome {
  code: number | null;
  stderr: string;
}

/** Starts every child, waits until all have loaded the library, then releases them together. */
async function raceOnNewStore(root: string, store: string): Promise<Outcome[]> {
  const children: ChildProcess[] = [];
  const outcomes: Array<Promise<Outcome>> = [];
  const ready: Array<Promise<void>> = [];
  for (let worker = 0; worker < PROCESSES; worker++) {
    const process = fork(child, [distIndex, root, store, String(worker), String(PER_PROCESS)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    children.push(process);
    let stderr = '';
    process.stderr?.on('data', (data: Buffer) => (stderr += data.toString()));
    // A child that dies while loading counts as ready (and then as a failure), so nothing waits forever.
    ready.push(
      new Promise((resolve) => {
        process.once('message', () => resolve());
        process.once('exit', () => resolve());
      }),
    );
    outcomes.push(new Promise((resolve) => process.once('exit', (code) => resolve({ code, stderr }))));
  }
  await Promise.all(ready);
  for (const process of children) if (process.connected) process.send('go');
  return Promise.all(outcomes);
}

describe('a brand-new store opened by many processes at once', () => {
  it(`creates index.db and memory.db once: ${PROCESSES} processes, 0 failures, 0 records lost`, async () => {
    const root = join(workspace, 'root');
    await mkdir(root);
    const store = join(workspace, 'store');
    const outcomes = await raceOnNewStore(root, store);
    const failures = outcomes.filter((outcome) => outcome.code !== 0).map((outcome) => outcome.stderr.trim());
    expect(failures).toEqual([]);
    const count = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM files').pluck().get();
      } finally {
        db.close();
      }
    };
    expect(count(join(store, 'index.db'))).toBe(PROCESSES * PER_PROCESS);
    expect(count(join(store, 'memory.db'))).toBe(PROCESSES * PER_PROCESS);
  }, 600_000); // 40 processes loading the library take ~35 CPU-seconds; minutes on a loaded machine
});
