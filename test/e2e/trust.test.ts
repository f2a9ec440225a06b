import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeEmbeddingServer } from '../../src/embed/test-support/fake-embedding-server.js';
import { FakeChatServer } from '../../src/llm/test-support/fake-chat-server.js';
import { startHttpsGitServer } from '../support/https-git-server.js';
import { runLoci } from '../support/run-cli.js';
import { writeSampleRepo } from '../support/sample-repo.js';

// A repository's own loci.config.json is untrusted: it must never pick where the user's
// secrets (API keys, git tokens) or code go. Each attack runs against a server on 127.0.0.1
// that records what it received.

let workspace: string;
const secret = 'aws-secret-value-never-sent-123';
const embeddings = new FakeEmbeddingServer(16);
const chat = new FakeChatServer();

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-trust-'));
  await embeddings.start();
  await chat.start();
});

afterAll(async () => {
  await embeddings.stop();
  await chat.stop();
  await rm(workspace, { recursive: true, force: true });
});

const hostileEmbedderConfig = () => JSON.stringify({ embedder: 'openai-compatible:stolen', embedderOptions: { baseUrl: `${embeddings.baseUrl}/v1`, apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' } });

const sawSecret = (headers: Array<string | undefined>) => headers.some((header) => header?.includes(secret));

describe('a folder config that names an endpoint and a key variable', () => {
  it('is refused with the keys named, until the user runs loci trust; a changed file must be trusted again', async () => {
    const home = join(workspace, 'home-embed');
    const repo = join(workspace, 'repo-embed');
    await mkdir(home, { recursive: true });
    await writeSampleRepo(repo);
    await writeFile(join(repo, 'loci.config.json'), hostileEmbedderConfig());
    const env = { AWS_SECRET_ACCESS_KEY: secret };
    const before = embeddings.requests.length;

    const refused = await runLoci(['index', repo], { cwd: home, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('embedder');
    expect(refused.stderr).toContain('embedderOptions.baseUrl');
    expect(refused.stderr).toContain('embedderOptions.apiKeyEnv');
    expect(refused.stderr).toContain(join(repo, 'loci.config.json'));
    expect(refused.stderr).toContain('loci trust');
    expect(refused.stderr).not.toContain(secret);
    expect(refused.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // Each refused key on its own line (not joined by a printed "\n").
    expect(refused.stderr).not.toContain('\\n');
    expect(refused.stderr.split('\n').filter((line) => /^ {2}embedderOptions\.(baseUrl|apiKeyEnv) = .*\(from .*loci\.config\.json\): /.test(line))).toHaveLength(2);
    expect(embeddings.requests.length).toBe(before);

    // A key set by the user's own flags overrides the folder's and needs no trust.
    const overridden = await runLoci(['index', repo, '--embedder', 'none', '--json'], {
      cwd: home,
      env: { ...env, LOCI_EMBEDDER_OPTIONS_BASE_URL: 'http://127.0.0.1:9/v1', LOCI_EMBEDDER_OPTIONS_API_KEY_ENV: 'UNSET_KEY' },
    });
    expect(overridden.code).toBe(0);
    expect(embeddings.requests.length).toBe(before);

    // Trusting it is an explicit step, recorded outside the folder.
    const trusted = await runLoci(['trust', repo], { cwd: home, env });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('embedderOptions.apiKeyEnv');
    expect(statSync(join(home, '.config', 'loci', 'trusted-folders.json')).mode & 0o777).toBe(0o600);
    const listed = JSON.parse((await runLoci(['trust', '--list', '--json'], { cwd: home, env })).stdout);
    expect(listed.folders).toEqual([expect.objectContaining({ path: repo, state: 'trusted' })]);
    const indexed = await runLoci(['index', repo, '--json'], { cwd: home, env });
    expect(indexed.code).toBe(0);
    expect(JSON.parse(indexed.stdout).embedder).toContain('openai-compatible');
    expect(sawSecret(embeddings.requests.slice(before).map((request) => request.headers.authorization))).toBe(true);

    // The folder changes its config: the old trust no longer covers it.
    const afterTrust = embeddings.requests.length;
    await writeFile(join(repo, 'loci.config.json'), hostileEmbedderConfig().replace('stolen', 'stolen-again'));
    const changed = await runLoci(['index', repo], { cwd: home, env });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('loci trust');
    expect(embeddings.requests.length).toBe(afterTrust);
    const relisted = JSON.parse((await runLoci(['trust', '--list', '--json'], { cwd: home, env })).stdout);
    expect(relisted.folders).toEqual([expect.objectContaining({ path: repo, state: 'changed' })]);

    const revoked = await runLoci(['trust', repo, '--revoke'], { cwd: home, env });
    expect(revoked.code).toBe(0);
    expect(JSON.parse((await runLoci(['trust', '--list', '--json'], { cwd: home, env })).stdout).folders).toEqual([]);
  });

  it('local keys (ignore rules, chunking, ranking weights) need no trust', async () => {
    const home = join(workspace, 'home-local');
    const repo = join(workspace, 'repo-local');
    await mkdir(home, { recursive: true });
    await writeSampleRepo(repo);
    await writeFile(
      join(repo, 'loci.config.json'),
      JSON.stringify({ embedder: 'none', sources: { exclude: ['docs/**'] }, chunking: { tokenBudget: 300 }, search: { topK: 3, weights: { lexical: 2 } } }),
    );
    const run = await runLoci(['index', repo, '--json'], { cwd: home });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).embedder).toBe('none');
    const nothing = await runLoci(['trust', home], { cwd: home });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to trust');
  });

  it('a user-level config file is trusted', async () => {
    const home = join(workspace, 'home-user-config');
    const repo = join(workspace, 'repo-user-config');
    await mkdir(join(home, '.config', 'loci'), { recursive: true });
    await writeSampleRepo(repo);
    await writeFile(join(home, '.config', 'loci', 'config.json'), hostileEmbedderConfig());
    const before = embeddings.requests.length;
    const run = await runLoci(['index', repo, '--json'], { cwd: home, env: { AWS_SECRET_ACCESS_KEY: secret } });
    expect(run.code).toBe(0);
    expect(sawSecret(embeddings.requests.slice(before).map((request) => request.headers.authorization))).toBe(true);
  });
});

describe('an index store carried inside the folder', () => {
  it("cannot pick a remote embedder for searches that the user's own config does not name", async () => {
    const home = join(workspace, 'home-store');
    const repo = join(workspace, 'repo-store');
    await mkdir(home, { recursive: true });
    await writeSampleRepo(repo);
    // The user's endpoint for gemini stands in for Google's (unreachable from tests).
    const env = { GEMINI_API_KEY: secret, LOCI_EMBEDDER_OPTIONS_BASE_URL: `${embeddings.baseUrl}/v1beta`, LOCI_EMBEDDER_OPTIONS_DIMENSIONS: '16' };
    // The repository ships .loci/ built with gemini (as if committed by its author).
    expect((await runLoci(['index', repo, '--embedder', 'gemini:gemini-embedding-001'], { cwd: home, env })).code).toBe(0);
    const before = embeddings.requests.length;
    const refused = await runLoci(['search', 'refunds', '--root', repo], { cwd: home, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('gemini:gemini-embedding-001');
    expect(refused.stderr).toContain('LOCI_EMBEDDER');
    expect(embeddings.requests.length).toBe(before);
    // Named by the user, it is used.
    const named = await runLoci(['search', 'refunds', '--root', repo, '--json'], { cwd: home, env: { ...env, LOCI_EMBEDDER: 'gemini:gemini-embedding-001' } });
    expect(named.code).toBe(0);
    expect(embeddings.requests.length).toBeGreaterThan(before);
  });
});

describe('a folder config that redirects the chat model', () => {
  it('loci ask refuses llm.baseUrl from the folder; LOCI_LLM_API_KEY never leaves', async () => {
    const home = join(workspace, 'home-ask');
    const repo = join(workspace, 'repo-ask');
    await mkdir(home, { recursive: true });
    await writeSampleRepo(repo);
    expect((await runLoci(['index', repo, '--embedder', 'none'], { cwd: home })).code).toBe(0);
    await writeFile(join(repo, 'loci.config.json'), JSON.stringify({ llm: { baseUrl: chat.baseUrl, model: 'exfiltrate' } }));
    const env = { LOCI_LLM_API_KEY: secret };
    const refused = await runLoci(['ask', 'how do refunds work', '--root', repo], { cwd: home, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('llm.baseUrl');
    expect(refused.stderr).toContain('loci trust');
    expect(chat.requests).toEqual([]);

    expect((await runLoci(['trust', repo], { cwd: home, env })).code).toBe(0);
    const answered = await runLoci(['ask', 'how do refunds work', '--root', repo], { cwd: home, env });
    expect(answered.code).toBe(0);
    expect(chat.requests.length).toBeGreaterThan(0);
  });
});

describe('git over HTTPS', () => {
  it('sends LOCI_GIT_TOKEN only to hosts the user listed, and a cloned repository config is untrusted', async () => {
    const home = join(workspace, 'home-git');
    const projects = join(workspace, 'git-projects');
    const source = join(workspace, 'git-source');
    await mkdir(home, { recursive: true });
    await writeSampleRepo(source);
    await writeFile(join(source, 'loci.config.json'), hostileEmbedderConfig());
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: source, env: { PATH: process.env.PATH ?? '', HOME: home, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', 'hostile config');
    execFileSync('git', ['clone', '-q', '--bare', source, join(projects, 'org', 'hostile.git')]);
    const token = 'ghp_tokenForListedHostsOnly77';
    const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
    const server = await startHttpsGitServer({ projectRoot: projects, certDir: home, token });
    try {
      await writeFile(join(home, '.gitconfig'), `[http]\n\tsslCAInfo = ${server.caFile}\n`);
      const url = `${server.url}/org/hostile.git`;
      const cache = join(home, 'repo-cache');

      // Not listed: the token stays home (and so does GITHUB_TOKEN, meant for github.com only).
      const unlisted = await runLoci(['index', url], { cwd: home, env: { LOCI_CACHE_DIR: cache, LOCI_GIT_TOKEN: token, GITHUB_TOKEN: token } });
      expect(unlisted.code).toBe(3);
      expect(unlisted.stderr).toContain('LOCI_GIT_TOKEN_HOSTS');
      expect(server.seen.length).toBeGreaterThan(0);
      expect(server.seen.every((header) => header === '')).toBe(true);

      // Listed for another host: still not sent.
      const other = await runLoci(['index', url], { cwd: home, env: { LOCI_CACHE_DIR: cache, LOCI_GIT_TOKEN: token, LOCI_GIT_TOKEN_HOSTS: 'github.com,gitlab.example.com' } });
      expect(other.code).toBe(3);
      expect(server.seen.every((header) => header === '')).toBe(true);

      // Listed: sent; the clone's own config is then refused before any embedding request.
      const before = embeddings.requests.length;
      const env = { LOCI_CACHE_DIR: cache, LOCI_GIT_TOKEN: token, LOCI_GIT_TOKEN_HOSTS: '127.0.0.1', AWS_SECRET_ACCESS_KEY: secret };
      const cloned = await runLoci(['index', url], { cwd: home, env });
      expect(server.seen).toContain(expected);
      expect(cloned.code).toBe(2);
      expect(cloned.stderr).toContain('embedderOptions.apiKeyEnv');
      expect(cloned.stderr).toContain('loci trust');
      expect(cloned.stderr).not.toContain(token);
      expect(embeddings.requests.length).toBe(before);

      expect((await runLoci(['trust', url], { cwd: home, env })).code).toBe(0);
      const indexed = await runLoci(['index', url, '--json'], { cwd: home, env });
      expect(indexed.code).toBe(0);
      expect(sawSecret(embeddings.requests.slice(before).map((request) => request.headers.authorization))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
