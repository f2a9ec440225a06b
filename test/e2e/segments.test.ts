import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SegmentReader } from '../../src/store/segment-file.js';
import { runLoci } from '../support/run-cli.js';
import { writeSampleRepo } from '../support/sample-repo.js';

let workspace: string;
let repo: string;
const QUERIES = ['invoice total', 'payment gateway card processor', 'formatMoney', 'refunds issued'];

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-segments-'));
  repo = join(workspace, 'repo');
  await writeSampleRepo(repo);
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const segments = () => readdirSync(join(repo, '.loci')).filter((name) => name.endsWith('.seg'));

/** Every query's results as path:line score, one string. */
async function answers(): Promise<string> {
  const lines: string[] = [];
  for (const query of QUERIES) {
    const run = await runLoci(['search', query, '--json', '--top-k', '8'], { cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: Array<{ path: string; startLine: number; score: number }> };
    expect(results.length).toBeGreaterThan(0);
    lines.push(...results.map((result) => `${query} → ${result.path}:${result.startLine} ${result.score.toFixed(6)}`));
  }
  return lines.join('\n');
}

describe('segment files through the CLI', () => {
  it('loci index writes one; one-shot searches answer the same with it, without it, and with a damaged one; doctor and gc know it', async () => {
    expect((await runLoci(['index', '.'], { cwd: repo })).code).toBe(0);
    expect(segments()).toHaveLength(1);
    const file = join(repo, '.loci', segments()[0] as string);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const withSegment = await answers();

    renameSync(file, `${file}.away`);
    expect(await answers()).toBe(withSegment); // the store's own (FTS5 + stored vectors) path ranks the same
    renameSync(`${file}.away`, file);

    // A damaged file (its tail: the last lexicon block): ignored (same answers) and rewritten by the process that rebuilt the index from the store.
    const good = readFileSync(file);
    const damaged = Buffer.from(good);
    damaged.fill(0, damaged.length - 64);
    writeFileSync(file, damaged);
    expect(await answers()).toBe(withSegment);
    expect(readFileSync(file).equals(damaged)).toBe(false);
    expect((await runLoci(['doctor', '--json'], { cwd: repo })).stdout).toMatch(/"check":"segment files","status":"ok"/);
    // Flagged by doctor, which says to delete it; the next index run (a small one) writes it anew.
    writeFileSync(file, damaged);
    const doctor = await runLoci(['doctor', '--json'], { cwd: repo });
    expect(doctor.stdout).toMatch(/segment-[0-9a-f]{12}\.seg is damaged \(lexicon block \d+ fails its checksum\)/);
    expect(doctor.stdout).toContain(`Delete ${file}`);
    rmSync(file);
    // A run that changes no file writes a lost segment too.
    expect((await runLoci(['index', '.'], { cwd: repo })).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    rmSync(file);
    await writeFile(join(repo, 'src', 'late.ts'), 'export function lateInvoiceFee(days: number): number {\n  return days * 150;\n}\n');
    expect((await runLoci(['index', '.'], { cwd: repo })).code).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect((await runLoci(['doctor', '--json'], { cwd: repo })).stdout).not.toMatch(/is damaged/);
    const late = await runLoci(['search', 'late invoice fee', '--json', '--top-k', '1'], { cwd: repo });
    expect(JSON.parse(late.stdout).results[0].path).toBe('src/late.ts');

    // Another embedder's segment is garbage to gc; the current one stays.
    const stale = join(repo, '.loci', 'segment-0123456789ab.seg');
    writeFileSync(stale, good);
    const gc = await runLoci(['gc', '--json'], { cwd: repo });
    expect(gc.code, gc.stderr).toBe(0);
    expect(JSON.parse(gc.stdout).removedGraphFiles).toEqual(['segment-0123456789ab.seg']);
    expect(segments()).toEqual([segments()[0]]);
    expect(segments()).toHaveLength(1);
  });

  it('kill -9 in the middle of writing a segment leaves the last whole file in place (the half-written one stays a .tmp)', async () => {
    const folder = join(workspace, 'kill');
    mkdirSync(folder);
    const file = join(folder, 'segment-0123456789ab.seg');
    const child = spawn(process.execPath, [fileURLToPath(new URL('../support/segment-writer-child.mjs', import.meta.url)), file, '200000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Wait until a whole file exists and the next write is under way (bounded: 60 s).
    const deadline = Date.now() + 60_000;
    const temporary = () => readdirSync(folder).filter((name) => name.endsWith('.tmp'));
    while (Date.now() < deadline && !(existsSync(file) && temporary().length > 0 && statSync(join(folder, temporary()[0] as string)).size > 1_000_000))
      await new Promise((resolve) => setTimeout(resolve, 2));
    child.kill('SIGKILL');
    await exited;
    expect(temporary()).toHaveLength(1); // killed mid-write: the half-written file is left behind
    const reader = SegmentReader.open(file); // the last whole file: opens and passes every checksum
    reader.verifyAll();
    expect(reader.header.rows).toBe(200_000);
    reader.close();
  });
});
