// Two `loci index` processes on one folder at once (a terminal beside `loci serve --index`, two
// terminals): one indexes, the other waits for it and finds the work done. Before the lease
// both planned before either wrote, and each re-indexed every file.
import { runLoci } from '../support/run-cli.js';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-concurrent-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

interface Summary {
  files: { indexed: number; unchanged: number; total: number };
}

describe('two index runs on one folder at once', () => {
  it('index every file once between them: the second waits, then finds nothing to do', async () => {
    const repo = join(workspace, 'repo');
    await mkdir(join(repo, 'src'), { recursive: true });
    const files = 600;
    for (let index = 0; index < files; index++) {
      const body = Array.from({ length: 40 }, (_, line) => `export function handler${index}_${line}(input: number): number {\n  return input * ${line} + ${index};\n}`).join('\n');
      await writeFile(join(repo, 'src', `module${index}.ts`), body);
    }
    const runs = await Promise.all([0, 1].map(() => runLoci(['index', repo, '--embedder', 'none', '--json'], { cwd: workspace })));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const summaries = runs.map((run) => JSON.parse(run.stdout) as Summary);
    expect(summaries.map((summary) => summary.files.total)).toEqual([files, files]);
    // Between them every file was indexed once: one run did all of it, the other none.
    expect(summaries.map((summary) => summary.files.indexed).sort((a, b) => a - b)).toEqual([0, files]);
    expect(runs.some((run) => /Waiting for another loci run indexing this store \(pid \d+/.test(run.stderr))).toBe(true);
  }, 180_000);
});
