import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsGitServer } from '../support/https-git-server.js';
import { runLoci } from '../support/run-cli.js';

let workspace: string;
let repo: string;
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: workspace, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
const index = async () => {
  const run = await runLoci(['index', repo, '--json'], { cwd: workspace });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout);
};

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'loci-lifecycle-'));
  repo = join(workspace, 'repo');
  await mkdir(join(repo, 'src'), { recursive: true });
  for (let file = 0; file < 20; file++) {
    await writeFile(
      join(repo, 'src', `module${file}.ts`),
      `export function handler${file}(input: string): string {\n  // module ${file} handles requests of kind ${file}\n  return input.repeat(${file + 1});\n}\n`,
    );
  }
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'main');
  git('checkout', '-qb', 'feature');
  for (let file = 0; file < 5; file++) {
    await writeFile(
      join(repo, 'src', `module${file}.ts`),
      `export function featureHandler${file}(input: string): number {\n  // the feature branch rewrote module ${file}\n  return input.length * ${file};\n}\n`,
    );
  }
  await writeFile(join(repo, 'src', 'feature-only.ts'), 'export const featureFlag = true;\n');
  git('add', '.');
  git('commit', '-qm', 'feature');
  git('checkout', '-q', 'main');
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('branches', () => {
  it('switching branch and back re-uses cached embeddings, and the store stays bounded', async () => {
    const first = await index();
    expect(first.embeddings.computed).toBeGreaterThan(0);

    git('checkout', '-q', 'feature');
    const feature = await index();
    expect(feature.files).toMatchObject({ added: 1, updated: 5, removed: 0 });
    expect(feature.embeddings.computed).toBeGreaterThan(0); // new content only
    expect(feature.embeddings.computed).toBeLessThanOrEqual(12);

    git('checkout', '-q', 'main');
    const back = await index();
    expect(back.files).toMatchObject({ updated: 5, removed: 1 });
    expect(back.embeddings.computed).toBe(0); // everything from the content-addressed cache
    expect(back.embeddings.cached).toBeGreaterThan(0);
    const search = JSON.parse((await runLoci(['search', 'handler3', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(search.results[0].path).toBe('src/module3.ts');
    expect(search.results[0].stale).toBeUndefined();

    // Ten more switches cost no embedding and do not grow the cache.
    const cached = JSON.parse((await runLoci(['status', '--root', repo, '--json'], { cwd: workspace })).stdout);
    for (let switchIndex = 0; switchIndex < 10; switchIndex++) {
      git('checkout', '-q', switchIndex % 2 === 0 ? 'feature' : 'main');
      expect((await index()).embeddings.computed).toBe(0);
    }
    const after = JSON.parse((await runLoci(['status', '--root', repo, '--json'], { cwd: workspace })).stdout);
    expect(after.vectors).toBe(cached.vectors);
    expect(after.cachedVectors).toBe(cached.cachedVectors);
    expect(after.cachedVectors).toBeGreaterThan(after.vectors); // the feature branch's vectors wait for re-use
  }, 180_000); // about 15 CLI runs of a real repository: minutes on a loaded 2-core machine

  it('loci gc drops vectors beyond the configured bound and stale graph files', async () => {
    await writeFile(join(repo, 'loci.config.json'), JSON.stringify({ cache: { maxUnreferencedVectors: 0 } }));
    await writeFile(join(repo, '.loci', 'vectors-0123456789ab.hnsw'), 'stale graph');
    const run = await runLoci(['gc', '--root', repo, '--compact', '--json'], { cwd: workspace });
    expect(run.stderr).toBe('');
    const summary = JSON.parse(run.stdout);
    expect(summary.removedVectors).toBeGreaterThan(0);
    expect(summary.keptUnreferenced).toBe(0);
    expect(summary.removedGraphFiles).toEqual(['vectors-0123456789ab.hnsw']);
    // The size after is the store's, its write-ahead log checkpointed: compacting never grows it.
    expect(summary.bytesAfter).toBeLessThanOrEqual(summary.bytesBefore);
    // What is indexed still searches semantically.
    const search = JSON.parse((await runLoci(['search', 'handles requests', '--root', repo, '--mode', 'vector', '--json'], { cwd: workspace })).stdout);
    expect(search.results.length).toBeGreaterThan(0);
    await rm(join(repo, 'loci.config.json'));
  });
});

describe('maintenance never makes an index', () => {
  it('loci gc in a folder never indexed is INDEX_NOT_FOUND (exit 3) and leaves no store behind', async () => {
    const bare = join(workspace, 'never-indexed');
    await mkdir(bare, { recursive: true });
    await writeFile(join(bare, 'a.py'), 'def hello():\n    pass\n');
    const run = await runLoci(['gc', '--json'], { cwd: bare });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stderr.trim().split('\n').at(-1) as string).error.code).toBe('INDEX_NOT_FOUND');
    expect(existsSync(join(bare, '.loci'))).toBe(false);
  });
});

describe('crash safety', () => {
  it('survives SIGKILL at random moments: integrity holds, no duplicates or orphans, and the next run resumes', async () => {
    const { spawn } = await import('node:child_process');
    const { cliPath } = await import('../support/run-cli.js');
    const big = join(workspace, 'big');
    for (let folder = 0; folder < 10; folder++) {
      await mkdir(join(big, `pkg${folder}`), { recursive: true });
      for (let file = 0; file < 40; file++) {
        const body = Array.from(
          { length: 12 },
          (_, fn) => `export function f${folder}_${file}_${fn}(value: number): number {\n  // package ${folder} file ${file} function ${fn}\n  return value * ${fn} + ${file};\n}`,
        ).join('\n\n');
        await writeFile(join(big, `pkg${folder}`, `file${file}.ts`), body);
      }
    }
    const store = join(workspace, 'crash-store');
    const check = () => {
      const db = new Database(join(store, 'index.db'));
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const one = (sql: string) => db.prepare(sql).pluck().get() as number;
        expect(one('SELECT count(*) FROM (SELECT chunk_id FROM chunks GROUP BY chunk_id HAVING count(*) > 1)')).toBe(0);
        expect(one('SELECT count(*) FROM chunks WHERE path NOT IN (SELECT path FROM files)')).toBe(0);
        expect(one('SELECT count(*) FROM files f WHERE chunk_count != (SELECT count(*) FROM chunks c WHERE c.path = f.path)')).toBe(0);
        expect(one('SELECT count(*) FROM chunk_terms WHERE chunk NOT IN (SELECT id FROM chunks)')).toBe(0);
        expect(one('SELECT count(*) FROM chunks WHERE id NOT IN (SELECT chunk FROM chunk_terms)')).toBe(0);
        expect(one('SELECT count(*) FROM symbol_names WHERE chunk NOT IN (SELECT id FROM chunks)')).toBe(0);
        return one('SELECT count(*) FROM files');
      } finally {
        db.close();
      }
    };
    let seed = 20261122;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let killedMidway = 0;
    // Each attempt first rewrites part of the tree, so there is always work to interrupt; kills
    // land anywhere from process start-up to the last commits. Bounded: at most 20 attempts.
    for (let attempt = 0; attempt < 20 && killedMidway < 6; attempt++) {
      const version = attempt;
      for (let file = 0; file < 120; file++) {
        const folder = Math.floor(random() * 10);
        const name = Math.floor(random() * 40);
        await writeFile(
          join(big, `pkg${folder}`, `file${name}.ts`),
          `export const version${version} = ${file};\n// rewritten in attempt ${attempt}\nexport function g${folder}_${name}() { return ${attempt}; }\n`,
        );
      }
      const child = spawn(process.execPath, [cliPath, 'index', big, '--store', store, '--json'], { stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let done = false;
      void exited.then(() => (done = true));
      if (attempt % 2 === 0) {
        // At a random moment, start-up included.
        const timer = setTimeout(() => child.kill('SIGKILL'), 100 + Math.floor(random() * 1400));
        void exited.then(() => clearTimeout(timer));
      } else {
        // Mid-write: once the run has committed a random number of files.
        const target = 1 + Math.floor(random() * 100);
        const watchdog = setTimeout(() => child.kill('SIGKILL'), 20_000);
        void exited.then(() => clearTimeout(watchdog));
        const committedAt = (since: number) => {
          if (!existsSync(join(store, 'index.db'))) return 0;
          const db = new Database(join(store, 'index.db'), { readonly: true, fileMustExist: true });
          try {
            return db.prepare('SELECT count(*) FROM files WHERE indexed_at > ?').pluck().get(since) as number;
          } catch {
            return 0;
          } finally {
            db.close();
          }
        };
        const since = Date.now();
        while (!done && committedAt(since) < target) await new Promise((resolve) => setTimeout(resolve, 10));
        if (!done) child.kill('SIGKILL');
      }
      const code = await exited;
      if (code === null) killedMidway++;
      if (existsSync(join(store, 'index.db'))) check();
    }
    expect(killedMidway).toBe(6);

    check();
    // Files whose committed content hash still matches the disk are finished work.
    const { createHash } = await import('node:crypto');
    const { readFileSync } = await import('node:fs');
    const catalog = new Database(join(store, 'index.db'), { readonly: true });
    const finished = (catalog.prepare('SELECT path, content_hash FROM files').all() as Array<{ path: string; content_hash: string }>).filter(
      (row) =>
        createHash('sha256')
          .update(readFileSync(join(big, row.path)))
          .digest('hex') === row.content_hash,
    ).length;
    catalog.close();
    expect(finished).toBeGreaterThan(0);
    const resumed = JSON.parse((await runLoci(['index', big, '--store', store, '--json'], { cwd: workspace })).stdout);
    expect(resumed.files.unchanged).toBe(finished); // finished files are neither re-chunked nor re-embedded
    expect(resumed.files.total).toBe(400);
    check();

    const clean = join(workspace, 'clean-store');
    await runLoci(['index', big, '--store', clean], { cwd: workspace });
    const ids = (folder: string) => {
      const db = new Database(join(folder, 'index.db'), { readonly: true });
      try {
        return (db.prepare('SELECT chunk_id FROM chunks ORDER BY chunk_id').pluck().all() as string[]).join('\n');
      } finally {
        db.close();
      }
    };
    expect(ids(store)).toBe(ids(clean));
  });
});

describe('watch', () => {
  it('re-indexes saved, new, deleted and newly ignored files; a git branch switch re-indexes the changed ones', async () => {
    const { spawn } = await import('node:child_process');
    const { unlink } = await import('node:fs/promises');
    const { cliPath } = await import('../support/run-cli.js');
    const watcher = spawn(process.execPath, [cliPath, 'watch', repo, '--json'], { cwd: workspace, env: { PATH: process.env.PATH ?? '' } });
    const events: Array<{ type: string; paths?: string[]; summary?: { files: { indexed: number; removed: number } } }> = [];
    let buffer = '';
    watcher.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
    });
    const waitFor = async (predicate: () => boolean, what: string) => {
      for (let attempt = 0; attempt < 200 && !predicate(); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
      if (!predicate()) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}`);
    };
    const search = async (query: string) => JSON.parse((await runLoci(['search', query, '--root', repo, '--mode', 'lexical', '--json'], { cwd: workspace })).stdout).results as Array<{ path: string }>;
    const indexedAfter = (count: number) => () => events.filter((event) => event.type === 'watch-indexed').length > count;
    try {
      await waitFor(() => events.some((event) => event.type === 'watch-ready'), 'watch-ready');
      let seen = 0;

      await writeFile(join(repo, 'src', 'module7.ts'), 'export function zebraStripes(): string {\n  return "saved while watching";\n}\n');
      await waitFor(indexedAfter(seen++), 'the save');
      expect((await search('zebraStripes'))[0]?.path).toBe('src/module7.ts');

      await writeFile(join(repo, 'src', 'brand-new.ts'), 'export const quokkaCount = 3;\n');
      await waitFor(indexedAfter(seen++), 'the new file');
      expect((await search('quokkaCount'))[0]?.path).toBe('src/brand-new.ts');

      await unlink(join(repo, 'src', 'brand-new.ts'));
      await waitFor(indexedAfter(seen++), 'the deletion');
      expect(await search('quokkaCount')).toEqual([]);

      await writeFile(join(repo, '.gitignore'), 'src/module7.ts\n');
      await waitFor(indexedAfter(seen++), 'the ignore rule');
      expect(await search('zebraStripes')).toEqual([]);
      await unlink(join(repo, '.gitignore'));
      await waitFor(indexedAfter(seen++), 'the rule removal');

      git('checkout', '-q', '--', 'src/module7.ts');
      await waitFor(indexedAfter(seen++), 'the restore');

      const until = async (query: string, path: string | undefined) => {
        for (let attempt = 0; attempt < 40; attempt++) {
          const results = await search(query);
          if (path === undefined ? results.length === 0 : results[0]?.path === path) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error(`"${query}" never settled on ${path ?? 'no results'}`);
      };
      git('checkout', '-q', 'feature');
      await until('featureHandler3', 'src/module3.ts');
      await until('featureFlag', 'src/feature-only.ts');
      git('checkout', '-q', 'main');
      await until('featureFlag', undefined);
      await until('handler3', 'src/module3.ts');
      expect(events.filter((event) => event.type === 'watch-error')).toEqual([]);
    } finally {
      watcher.kill('SIGTERM');
    }
  });
});

describe('remote sources', () => {
  it('clones a repository URL shallowly into the cache, searches it by URL, and pulls on re-index', async () => {
    const origin = join(workspace, 'origin.git');
    execFileSync('git', ['clone', '-q', '--bare', repo, origin]);
    const url = `file://${origin}`;
    const env = { LOCI_CACHE_DIR: join(workspace, 'repo-cache'), LOCI_GIT_TOKEN: 'tok-never-written-123' };
    const first = await runLoci(['index', url, '--json'], { cwd: workspace, env });
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain('tok-never-written-123');
    expect(JSON.parse(first.stdout).files.total).toBeGreaterThan(10);
    const found = JSON.parse((await runLoci(['search', 'handler5', '--root', url, '--json'], { cwd: workspace, env })).stdout);
    expect(found.results[0].path).toBe('src/module5.ts');

    // A new commit upstream arrives with the next index run.
    const work = join(workspace, 'upstream-work');
    execFileSync('git', ['clone', '-q', origin, work]);
    await writeFile(join(work, 'src', 'upstream.ts'), 'export const platypusMode = "on";\n');
    const gitIn = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: workspace, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
    gitIn(work, 'add', '.');
    gitIn(work, 'commit', '-qm', 'upstream');
    gitIn(work, 'push', '-q', 'origin', 'HEAD');
    const again = await runLoci(['index', url], { cwd: workspace, env });
    expect(again.stderr).toMatch(/^updated file:\/\/.*origin\.git at [0-9a-f]{12}/);
    const pulled = JSON.parse((await runLoci(['search', 'platypusMode', '--root', url, '--json'], { cwd: workspace, env })).stdout);
    expect(pulled.results[0].path).toBe('src/upstream.ts');

    const missing = await runLoci(['index', `file://${join(workspace, 'nope.git')}`], { cwd: workspace, env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/git clone of file:\/\/.*nope\.git failed: .*[^.]\.\n/);
    const never = await runLoci(['search', 'x', '--root', 'https://example.invalid/org/repo'], { cwd: workspace, env });
    expect(never.code).toBe(3);
    expect(never.stderr).toMatch(/has not been indexed yet/);
  });
});

describe('remote sources over HTTPS with a token', () => {
  it('authenticates with LOCI_GIT_TOKEN from the environment and never writes the token anywhere', async () => {
    const projects = join(workspace, 'https-projects');
    await mkdir(projects, { recursive: true });
    execFileSync('git', ['clone', '-q', '--bare', repo, join(projects, 'team', 'private.git')]);
    const home = join(workspace, 'https-home');
    await mkdir(home, { recursive: true });
    const token = 'ghp_secretTokenNeverWritten42';
    const server = await startHttpsGitServer({ projectRoot: projects, certDir: home, token });
    try {
      // The client trusts the test's self-signed certificate, as a user's git trusts a real one.
      await writeFile(join(home, '.gitconfig'), `[http]\n\tsslCAInfo = ${server.caFile}\n`);
      const url = `${server.url}/team/private.git`;
      const cache = join(home, 'repo-cache');

      const refused = await runLoci(['index', url], { cwd: home, env: { LOCI_CACHE_DIR: cache } });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/git clone of https:\/\/127\.0\.0\.1:\d+\/team\/private\.git failed/);

      const wrong = await runLoci(['index', url], { cwd: home, env: { LOCI_CACHE_DIR: cache, LOCI_GIT_TOKEN: 'wrong-token-value', LOCI_GIT_TOKEN_HOSTS: '127.0.0.1' } });
      expect(wrong.code).toBe(3);
      expect(wrong.stderr).not.toContain('wrong-token-value');

      const env = { LOCI_CACHE_DIR: cache, LOCI_GIT_TOKEN: token, LOCI_GIT_TOKEN_HOSTS: '127.0.0.1' };
      const cloned = await runLoci(['index', url, '--json'], { cwd: home, env });
      expect(cloned.stderr).not.toContain(token);
      expect(cloned.code).toBe(0);
      expect(JSON.parse(cloned.stdout).files.total).toBeGreaterThan(10);
      const again = await runLoci(['index', url], { cwd: home, env }); // a fetch, authenticated the same way
      expect(again.code).toBe(0);
      const authorized = server.seen.filter((header) => header === `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`);
      expect(authorized.length).toBeGreaterThanOrEqual(2);

      // Nothing on disk holds the token: not the clone's config, not the index, not the cache.
      const encoded = Buffer.from(`x-access-token:${token}`).toString('base64');
      let holders = '';
      try {
        holders = execFileSync('grep', ['-rlF', '-e', token, '-e', encoded, home], { encoding: 'utf8' });
      } catch (error) {
        if ((error as { status?: number }).status !== 1) throw error; // 1: nothing found
      }
      expect(holders).toBe('');
    } finally {
      await server.close();
    }
  });
});
