// Store faults through the built CLI: a damaged index.db, paths that cannot hold a store,
// stores the user cannot write, store file modes, and hostile characters in file names.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runLoci, type CliRun } from '../support/run-cli.js';

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-store-faults-'));
  // Other users (the unprivileged runs below) must be able to reach the repositories.
  await chmod(workspace, 0o755);
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A repository big enough for a multi-page index: 60 files of distinct text. */
async function writeRepo(root: string): Promise<void> {
  await mkdir(root, { recursive: true });
  for (let file = 0; file < 60; file++) {
    const words = Array.from({ length: 400 }, (_, word) => `term${(file * 7919 + word * 104729) % 100_003}`).join(' ');
    await writeFile(join(root, `module${file}.ts`), `export function compute${file}(value: number): number {\n  return value * ${file};\n}\n// ${words}\n`);
  }
}

/** A user error: one line on stderr, no stack trace, not reported as a bug. */
function expectOneLineUserError(run: CliRun, code: number, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\n\s+at |bug in loci|unexpected error/);
}

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

describe('a damaged index.db', () => {
  it('makes status and index exit 4 with what to do, without writing to it; doctor names it; the advice works', async () => {
    const repo = join(workspace, 'damaged');
    await writeRepo(repo);
    expect((await runLoci(['index', repo, '--embedder', 'none'], { cwd: workspace })).code).toBe(0);
    expect((await runLoci(['memory', 'add', 'the', 'deploy', 'key', 'rotates', 'monthly', '--root', repo, '--namespace', 'ops'], { cwd: workspace })).code).toBe(0);
    const index = join(repo, '.loci', 'index.db');
    const size = (await stat(index)).size;
    const page = Math.floor(size / 4096 / 2);
    const handle = await open(index, 'r+');
    await handle.write(Buffer.alloc(4096, 0x5a), 0, 4096, page * 4096);
    await handle.close();
    const before = await sha256(index);

    const status = await runLoci(['status', '--root', repo], { cwd: workspace });
    expectOneLineUserError(status, 4, /index at .*index\.db is damaged \(.*\)\. Rebuild it: move index\.db, index\.db-wal, index\.db-shm .* then run `loci index` again\. memory\.db .* not affected/);
    const reindex = await runLoci(['index', repo, '--embedder', 'none'], { cwd: workspace });
    expectOneLineUserError(reindex, 4, /index at .*index\.db is damaged/);
    expect(await sha256(index)).toBe(before);

    const doctor = await runLoci(['doctor', '--root', repo, '--json'], { cwd: workspace });
    expect(doctor.code).toBe(4);
    const report = JSON.parse(doctor.stdout);
    expect(report.healthy).toBe(false);
    const byFile = (suffix: string, check: string) => report.findings.find((finding: { file: string; check: string }) => finding.file.endsWith(suffix) && finding.check === check);
    expect(byFile('index.db', 'integrity_check')).toMatchObject({ status: 'error' });
    expect(byFile('memory.db', 'integrity_check')).toMatchObject({ status: 'ok' });

    // Following the advice: move index.db aside, re-index; the memory is still there.
    await rename(index, `${index}.damaged`);
    expect((await runLoci(['index', repo, '--embedder', 'none'], { cwd: workspace })).code).toBe(0);
    expect((await runLoci(['status', '--root', repo], { cwd: workspace })).code).toBe(0);
    const memory = JSON.parse((await runLoci(['memory', 'list', '--root', repo, '--namespace', 'ops', '--json'], { cwd: workspace })).stdout);
    expect(memory.records.map((record: { text: string }) => record.text)).toEqual(['the deploy key rotates monthly']);
    const healthy = await runLoci(['doctor', '--root', repo], { cwd: workspace });
    expect(healthy.code, healthy.stdout).toBe(0);
    expect(healthy.stdout).toMatch(/healthy/);
  });
});

describe('paths that cannot hold a store', () => {
  it('a folder where the .db file should be is a one-line error (exit 4)', async () => {
    const repo = join(workspace, 'folder-at-db');
    await writeRepo(repo);
    await mkdir(join(workspace, 'taken.db'));
    const index = await runLoci(['index', repo, '--store', join(workspace, 'taken.db')], { cwd: workspace });
    expectOneLineUserError(index, 4, /taken\.db is a folder, not a database file/);
    const status = await runLoci(['status', '--root', repo, '--store', join(workspace, 'taken.db')], { cwd: workspace });
    expectOneLineUserError(status, 4, /taken\.db is a folder, not a database file/);
  });

  it('a file where the .loci folder should be is a one-line error (exit 4)', async () => {
    const repo = join(workspace, 'file-at-folder');
    await writeRepo(repo);
    await writeFile(join(repo, '.loci'), 'not a folder');
    const index = await runLoci(['index', repo], { cwd: workspace });
    expectOneLineUserError(index, 4, /A file named \.loci is where the store folder should be/);
    const memory = await runLoci(['memory', 'add', 'x', '--root', repo, '--namespace', 'a'], { cwd: workspace });
    expectOneLineUserError(memory, 4, /A file named \.loci is where the store folder should be/);
  });

  it('--store naming a file that is not a store says so, and never advises moving it', async () => {
    const repo = join(workspace, 'store-is-file');
    await writeRepo(repo);
    const someone = join(workspace, 'passwd');
    await writeFile(someone, 'root:x:0:0:root:/root:/bin/bash\n');
    for (const args of [
      ['index', repo, '--store', someone],
      ['search', 'x', '--root', repo, '--store', someone],
    ]) {
      const run = await runLoci(args, { cwd: workspace });
      expectOneLineUserError(run, 4, /passwd is a file, not a loci store/);
      expect(run.stderr).not.toMatch(/[Mm]ove that file/);
    }
    expect(await readFile(someone, 'utf8')).toBe('root:x:0:0:root:/root:/bin/bash\n');
  });

  it('a store under /sys (refused even to root) is a one-line error (exit 4)', async () => {
    const repo = join(workspace, 'sys-store');
    await writeRepo(repo);
    const index = await runLoci(['index', repo, '--store', '/sys/loci-store-test'], { cwd: workspace });
    expectOneLineUserError(index, 4, /Cannot create the store folder \/sys\/loci-store-test: (permission denied|operation not permitted)/);
  });
});

// Root ignores file modes, so as root the CLI runs as "nobody" to meet a real EACCES.
const asOtherUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

function runUnprivileged(args: string[], cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, timeout: 120_000, ...asOtherUser }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('stores the user cannot write', () => {
  it('an unwritable store folder is a one-line error (exit 4)', async () => {
    const repo = join(workspace, 'unwritable');
    await writeRepo(repo);
    const store = join(workspace, 'locked-store');
    await mkdir(store, { mode: 0o555 });
    await chmod(store, 0o555);
    const index = await runUnprivileged(['index', repo, '--store', store, '--embedder', 'none'], workspace);
    expectOneLineUserError(index, 4, /Cannot create .*locked-store.index\.db: permission denied \(EACCES\)/);
  });

  it('a read-only store: index and status are one-line errors (exit 4)', async () => {
    const repo = join(workspace, 'read-only');
    await writeRepo(repo);
    expect((await runLoci(['index', repo, '--embedder', 'none'], { cwd: workspace })).code).toBe(0);
    const folder = join(repo, '.loci');
    await chmod(join(folder, 'index.db'), 0o444);
    await chmod(folder, 0o555);
    await writeFile(join(repo, 'added.ts'), 'export const added = 1;\n');
    const index = await runUnprivileged(['index', repo, '--embedder', 'none'], workspace);
    expectOneLineUserError(index, 4, /index\.db/);
    // SQLite cannot read a WAL database without its -shm file when the folder is read-only.
    const status = await runUnprivileged(['status', '--root', repo], workspace);
    expectOneLineUserError(status, 4, /Cannot open or write the store at .*index\.db/);
    const memory = await runUnprivileged(['memory', 'add', 'x', '--root', repo, '--namespace', 'a'], workspace);
    expectOneLineUserError(memory, 4, /Cannot create .*memory\.db: permission denied \(EACCES\)/);
  });
});

describe('store files are private to their owner', () => {
  it('creates the store folder 0700 and index.db, memory.db 0600', async () => {
    const repo = join(workspace, 'modes');
    await writeRepo(repo);
    expect((await runLoci(['index', repo, '--embedder', 'none'], { cwd: workspace })).code).toBe(0);
    expect((await runLoci(['memory', 'add', 'private', 'note', '--root', repo, '--namespace', 'a'], { cwd: workspace })).code).toBe(0);
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(join(repo, '.loci'))).toBe(0o700);
    expect(await mode(join(repo, '.loci', 'index.db'))).toBe(0o600);
    expect(await mode(join(repo, '.loci', 'memory.db'))).toBe(0o600);
    const doctor = JSON.parse((await runLoci(['doctor', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(doctor.findings.find((finding: { check: string }) => finding.check === 'permissions')).toMatchObject({ status: 'ok' });
  });

  it('a store written into the root itself gets 0600 files (the root keeps its mode)', async () => {
    const repo = join(workspace, 'store-in-root');
    await writeRepo(repo);
    await chmod(repo, 0o755);
    expect((await runLoci(['index', repo, '--embedder', 'none', '--store', join(repo, 'loci.db')], { cwd: workspace })).code).toBe(0);
    expect((await stat(join(repo, 'loci.db'))).mode & 0o777).toBe(0o600);
    expect((await stat(repo)).mode & 0o777).toBe(0o755);
  });
});

describe('hostile characters in file names', () => {
  it('status and errors show escape sequences and newlines as visible escapes, never raw', async () => {
    const repo = join(workspace, 'escapes');
    await writeRepo(repo);
    expect((await runLoci(['index', repo, '--embedder', 'none'], { cwd: workspace })).code).toBe(0);
    const hostile = 'evil\x1b[2J\x1b]0;owned\x07\u202etxt.ts';
    await writeFile(join(repo, hostile), 'export const evil = 1;\n');
    await writeFile(join(repo, 'two\nlines.ts'), 'export const two = 2;\n');
    const status = await runLoci(['status', '--root', repo], { cwd: workspace });
    expect(status.code).toBe(0);
    expect(status.stdout).not.toMatch(/[\x1b\x07\u202e]/);
    expect(status.stdout).toContain('evil\\x1b[2J\\x1b]0;owned\\x07\\u202etxt.ts');
    expect(status.stdout).toContain('two\\nlines.ts');
    const missing = await runLoci(['status', '--root', join(workspace, 'no\x1b[31mhere')], { cwd: workspace });
    expectOneLineUserError(missing, 3, /no\\x1b\[31mhere/);
    expect(missing.stderr).not.toContain('\x1b');
  });
});
