import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeChatServer } from '../../src/llm/test-support/fake-chat-server.js';
import { runLoci } from '../support/run-cli.js';
import { writeSampleRepo } from '../support/sample-repo.js';

// `loci ask` talks to a small OpenAI-compatible server on 127.0.0.1: no real model is reachable here.
let workspace: string;
let repo: string;
const server = new FakeChatServer();

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-context-cli-'));
  repo = join(workspace, 'repo');
  await mkdir(repo);
  await writeSampleRepo(repo);
  await writeFile(join(repo, 'big.md'), Array.from({ length: 400 }, (_, index) => `Paragraph ${index} about invoices and refunds and charges.`).join('\n\n'));
  expect((await runLoci(['index', repo], { cwd: workspace })).code).toBe(0);
  await server.start();
});

afterAll(async () => {
  await server.stop();
  await rm(workspace, { recursive: true, force: true });
});

describe('loci context', () => {
  it('prints the documented JSON and never exceeds --max-tokens', async () => {
    for (const max of [300, 800, 2000]) {
      const run = await runLoci(['context', 'how', 'is', 'a', 'refund', 'charged', '--root', repo, '--max-tokens', String(max), '--no-small-project', '--json'], { cwd: workspace });
      expect(run.stderr).toBe('');
      const out = JSON.parse(run.stdout);
      expect(Object.keys(out)).toEqual(expect.arrayContaining(['tokens', 'prompt', 'messages', 'sources']));
      expect(out.tokens).toBeLessThanOrEqual(max);
      expect(out.messages.at(-1)).toEqual({ role: 'user', content: 'how is a refund charged' });
      for (const source of out.sources) expect(source).toEqual({ path: expect.any(String), startLine: expect.any(Number), endLine: expect.any(Number) });
      if (max >= 800) expect(out.sources.length).toBeGreaterThan(0);
    }
    const tooBig = await runLoci(['context', '/all', 'everything', '--root', repo, '--max-tokens', '500'], { cwd: workspace });
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toMatch(/\/all \*\* matches \d+ files of (more than )?\d+ tokens/);
  });

  it('says which packed files were deleted since they were indexed, as search flags them', async () => {
    const copy = join(workspace, 'stale-repo');
    await mkdir(copy);
    await writeSampleRepo(copy);
    expect((await runLoci(['index', copy], { cwd: workspace })).code).toBe(0);
    const ask = ['context', 'how', 'is', 'a', 'refund', 'charged', '--root', copy, '--max-tokens', '2000', '--no-small-project', '--json'];
    const before = await runLoci(ask, { cwd: workspace });
    expect(before.stderr).toBe('');
    const packed = JSON.parse(before.stdout).sources[0].path as string;
    await rm(join(copy, packed));
    const after = await runLoci(ask, { cwd: workspace });
    expect(after.code).toBe(0);
    expect(after.stderr).toContain(`deleted since it was indexed: ${packed}`);
  });
});

describe('loci ask', () => {
  it('streams an answer with numbered citations and records the turn and the interaction', async () => {
    server.answer = () => 'Refunds go through the gateway [1].';
    const env = { LOCI_LLM_BASE_URL: server.baseUrl, LOCI_LLM_MODEL: 'tiny-test', LOCI_LLM_API_KEY: 'sk-local' };
    const run = await runLoci(['ask', 'how', 'do', 'refunds', 'work', '--root', repo, '--conversation', 'c42', '--max-tokens', '1500'], { cwd: workspace, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Only the source the answer cites is listed, and the rest are counted.
    expect(run.stdout).toMatch(/^Refunds go through the gateway \[1\]\.\n\nSources cited:\n\[1\] \S+:\d+-\d+\n\(\d+ more packed, not cited; --json lists every source\)\n$/);
    const request = server.requests.at(-1);
    expect(request?.authorization).toBe('Bearer sk-local');
    expect(request?.body.messages?.map((message) => message.role)).toEqual(['system', 'system', 'user']);

    const turns = JSON.parse((await runLoci(['memory', 'list', '--root', repo, '--namespace', 'conversations/c42', '--json'], { cwd: workspace })).stdout).records;
    expect(turns[0].fields).toMatchObject({ conversationId: 'c42', userQuery: 'how do refunds work', assistantResponse: 'Refunds go through the gateway [1].' });
    const interactions = JSON.parse((await runLoci(['memory', 'list', '--root', repo, '--namespace', 'loci/ask', '--json'], { cwd: workspace })).stdout).records;
    expect(interactions[0].fields).toMatchObject({ prompt: 'how do refunds work', outcome: 'success' });

    // The follow-up carries the conversation's history.
    server.answer = () => 'Partial refunds are split [2, 3]; see also [99].';
    const followUp = JSON.parse((await runLoci(['ask', 'and', 'partial', 'refunds?', '--root', repo, '--conversation', 'c42', '--json'], { cwd: workspace, env })).stdout);
    expect(server.requests.at(-1)?.body.messages?.map((message) => message.role)).toEqual(['system', 'system', 'user', 'assistant', 'user']);
    expect(followUp.sources.length).toBeGreaterThanOrEqual(3);
    expect(followUp.cited).toEqual([2, 3]);
    // A number no source has is warned about, never silently dropped.
    expect(followUp.warnings).toContainEqual(expect.stringMatching(/^The answer cites \[99\], which is not among the \d+ numbered sources/));
    // Code in the answer is not a citation: the answer cites none of its sources.
    server.answer = () => 'I cannot tell from the context; it reads `argv[2]`.\n```\nlimit = limits[1]\n```';
    const uncited = await runLoci(['ask', 'what', 'is', 'the', 'refund', 'limit', '--root', repo], { cwd: workspace, env });
    expect(uncited.stdout).toMatch(/\n\nSources packed \(the answer cites none of them\):\n\[1\] /);
    expect(uncited.stderr).toBe('');

    server.faults.push('unauthorized');
    const refused = await runLoci(['ask', 'anything', '--root', repo], { cwd: workspace, env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/LOCI_LLM_API_KEY/);
    const failed = JSON.parse((await runLoci(['memory', 'search', 'anything', '--root', repo, '--namespace', 'loci/ask', '--outcome', 'error', '--json'], { cwd: workspace })).stdout).results;
    expect(failed[0].fields).toMatchObject({ prompt: 'anything', outcome: 'error' });

    const unconfigured = await runLoci(['ask', 'anything', '--root', repo], { cwd: workspace });
    expect(unconfigured.code).toBe(2);
    expect(unconfigured.stderr).toMatch(/LOCI_LLM_BASE_URL/);
  });
});
