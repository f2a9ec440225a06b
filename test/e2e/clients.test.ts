import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoci } from '../support/run-cli.js';
import { startServer, stopServer } from '../support/serve.js';

// #21: the C#, Go and Python clients in clients/, compiled and run against a real `loci serve`,
// each replaying its seed's flow. CI installs the toolchains (.ci/run); locally a missing one
// is skipped with the reason, and under CI=true it fails.
const run = promisify(execFile);
const clients = fileURLToPath(new URL('../../clients/', import.meta.url));
const token = 'clients-token-123-long-enough';
const has = (tool: string) => ['/usr/bin', '/usr/local/bin', '/usr/lib/go/bin'].some((dir) => existsSync(join(dir, tool)));
const need = (tool: string, pkg: string) => {
  if (has(tool)) return true;
  if (process.env.CI === 'true') throw new Error(`${tool} is missing: .ci/run installs ${pkg} with apt-get`);
  return false;
};

let workspace: string;
let repo: string;
let server: ChildProcess;
let base: string;

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-clients-'));
  repo = join(workspace, 'repo');
  await mkdir(join(repo, 'src'), { recursive: true });
  await writeFile(join(repo, 'src', 'refund.ts'), 'export function refundCharge(id: string): string {\n  // refunds go back to the card that paid\n  return `refund ${id}`;\n}\n');
  await writeFile(
    join(repo, 'KNOWLEDGE.md'),
    '# Deploys\n\nDeploys go out on Tuesdays after the freeze.\n\n# Style\n\nThe team indents with tabs, never spaces.\n\n# Lunch\n\nThe canteen serves soup on Fridays.\n',
  );
  expect((await runLoci(['index', repo], { cwd: workspace })).code).toBe(0);
  ({ process: server, base } = await startServer(['--root', repo, '--token', token], { cwd: workspace }));
});

afterAll(async () => {
  await stopServer(server);
  await rm(workspace, { recursive: true, force: true });
});

describe('clients over the HTTP API', () => {
  it('C# (Unity): logs interactions with outcomes in a session, recalls the successful ones; a new session recalls nothing', async () => {
    if (!need('mcs', 'mono-mcs') || !need('mono', 'mono-runtime')) return;
    const exe = join(workspace, 'unity-flow.exe');
    await run('mcs', [`-out:${exe}`, 'LociClient.cs', 'Json.cs', 'UnityFlow.cs'], { cwd: join(clients, 'csharp'), timeout: 60_000 });
    const { stdout } = await run('mono', [exe, base, token], { timeout: 60_000 });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('first-recall 0');
    expect(lines.filter((line) => line.startsWith('success ')).sort()).toEqual(['success success spawn three goblins near the gate', 'success success spawn two archers on the wall [multi-step]']);
    expect(lines.filter((line) => line.startsWith('error '))).toEqual(['error error spawn a dragon on the roof / the roof has no collider']);
    expect(lines.at(-1)).toBe('malformed 400 INVALID_ARGUMENT');
  });

  it('Go (boss agent): load-or-create a knowledge store from markdown, search it at 0.5 / top 2', async () => {
    if (!need('go', 'golang-go')) return;
    const env = { ...process.env, GOCACHE: join(workspace, 'gocache'), GOPATH: join(workspace, 'gopath'), GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', GOPROXY: 'off' };
    const binary = join(workspace, 'boss-agent');
    await run('go', ['build', '-o', binary, './cmd/boss-agent'], { cwd: join(clients, 'go'), env, timeout: 180_000 });
    const ask = async () => JSON.parse((await run(binary, [base, token, 'boss', 'KNOWLEDGE.md', 'when do deploys go out', 'tabs or spaces'], { timeout: 60_000 })).stdout);
    const first = await ask();
    expect(first.store).toMatchObject({ agent: 'boss', source: 'KNOWLEDGE.md', sections: 3, rebuilt: true });
    for (const [question, expected] of [
      ['when do deploys go out', 'Tuesdays'],
      ['tabs or spaces', 'tabs'],
    ] as const) {
      const found = first.answers[question] as Array<{ text: string; score: number }>;
      expect(found.length).toBeGreaterThan(0);
      expect(found.length).toBeLessThanOrEqual(2);
      expect(found[0]?.text).toContain(expected);
      for (const hit of found) expect(hit.score).toBeGreaterThanOrEqual(0.5);
    }
    expect((await ask()).store.rebuilt).toBe(false); // load-or-create: the second run loads
  });

  it('Python (DeepWiki): a chat that asks with history and appends each dialog turn', async () => {
    if (!need('python3', 'python3')) return;
    const { stdout } = await run('python3', ['deepwiki_chat.py', base, token, 'how are refunds charged', 'and where does the money go'], { cwd: join(clients, 'python'), timeout: 60_000 });
    const result = JSON.parse(stdout);
    expect(result.transcript.map((entry: { answer: string }) => entry.answer)).toEqual(['See src/refund.ts.', 'See src/refund.ts.']);
    // The second question was asked with the first turn in its prompt.
    expect(result.transcript[1].promptTokens).toBeGreaterThan(result.transcript[0].promptTokens);
    expect(result.history).toEqual([
      { role: 'user', content: 'how are refunds charged' },
      { role: 'assistant', content: 'See src/refund.ts.' },
      { role: 'user', content: 'and where does the money go' },
      { role: 'assistant', content: 'See src/refund.ts.' },
    ]);
  });
});
