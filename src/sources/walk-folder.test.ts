import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walkFolder } from './walk-folder.js';

let root: string;
let outside: string;

async function put(files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

async function paths(options: Partial<Parameters<typeof walkFolder>[0]> = {}) {
  const result = await walkFolder({ root, maxFileBytes: 1_000_000, ...options });
  return { result, files: result.files.map((file) => file.path) };
}

beforeEach(async () => {
  const base = await mkdtemp(join(tmpdir(), 'loci-walk-'));
  root = join(base, 'repo');
  outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
});

afterEach(async () => {
  await chmod(join(root, 'locked'), 0o755).catch(() => undefined);
  await rm(dirname(root), { recursive: true, force: true });
});

describe('walkFolder: gitignore semantics', () => {
  it('applies nested .gitignore files to their own subtree', async () => {
    await put({
      '.gitignore': '*.log\n',
      'a.log': '',
      'keep.txt': '',
      'pkg/.gitignore': 'generated.ts\n',
      'pkg/generated.ts': '',
      'pkg/index.ts': '',
      'other/generated.ts': '',
    });
    const { files, result } = await paths();
    expect(files).toEqual(['.gitignore', 'keep.txt', 'other/generated.ts', 'pkg/.gitignore', 'pkg/index.ts']);
    expect(result.skipped.ignored).toBe(2);
  });

  it('honours negation, including a deeper file re-including', async () => {
    await put({
      '.gitignore': '*.log\n!important.log\n',
      'a.log': '',
      'important.log': '',
      'sub/.gitignore': '!debug.log\n',
      'sub/debug.log': '',
      'sub/trace.log': '',
    });
    const { files } = await paths();
    expect(files).toEqual(['.gitignore', 'important.log', 'sub/.gitignore', 'sub/debug.log']);
  });

  it('handles directory-only and anchored patterns', async () => {
    await put({
      '.gitignore': 'cache/\n/top.txt\n',
      'cache/x.txt': '',
      'cache.txt': '',
      'top.txt': '',
      'nested/top.txt': '',
      'nested/cache/y.txt': '',
    });
    const { files } = await paths();
    expect(files).toEqual(['.gitignore', 'cache.txt', 'nested/top.txt']);
  });

  it('cannot re-include a file under an excluded directory (git rule)', async () => {
    await put({ '.gitignore': 'logs/\n!logs/keep.txt\n', 'logs/keep.txt': '', 'logs/other.txt': '' });
    const { files, result } = await paths();
    expect(files).toEqual(['.gitignore']);
    expect(result.skipped.ignored).toBe(1); // the directory, counted once
  });

  it('lets .lociignore override .gitignore at the same level, and applies config excludes', async () => {
    await put({ '.gitignore': '*.gen.ts\n', '.lociignore': '!wanted.gen.ts\ndocs/\n', 'wanted.gen.ts': '', 'x.gen.ts': '', 'docs/a.md': '', 'src/a.ts': '', 'src/b.test.ts': '' });
    const { files } = await paths({ exclude: ['*.test.ts'] });
    expect(files).toEqual(['.gitignore', '.lociignore', 'src/a.ts', 'wanted.gen.ts']);
  });

  it('reads .lociignore even when .gitignore is not respected', async () => {
    await put({ '.gitignore': 'a.txt\n', '.lociignore': 'b.txt\n', 'a.txt': '', 'b.txt': '' });
    const { files } = await paths({ respectGitignore: false });
    expect(files).toEqual(['.gitignore', '.lociignore', 'a.txt']);
  });

  it('reads .git/info/exclude', async () => {
    await put({ '.git/info/exclude': 'local.txt\n', 'local.txt': '', 'shared.txt': '' });
    const { files } = await paths();
    expect(files).toEqual(['shared.txt']);
  });
});

describe('walkFolder: exclusions and skips', () => {
  it('always excludes VCS, dependency and store folders, and given paths', async () => {
    await put({ '.git/HEAD': '', 'node_modules/x/index.js': '', 'dist/a.js': '', '.loci/index.db': '', 'src/a.ts': '', 'custom-store/x': '' });
    const { files, result } = await paths({ excludeAbsolutePaths: [join(root, 'custom-store')] });
    expect(files).toEqual(['src/a.ts']);
    expect(result.skipped['excluded-directory']).toBe(4);
    expect(result.skipped.ignored).toBe(1); // dist/: build output, ignored by default
    expect(result.skippedExamples['excluded-directory']).toEqual(expect.arrayContaining(['node_modules', '.git']));
  });

  it('ignores build output folders by default, and a .lociignore can bring one back', async () => {
    await put({ 'build/build.gradle': 'apply plugin: "java"', 'dist/a.js': '', 'out/b.js': '', 'target/c.rs': '', 'src/a.ts': '', 'node_modules/x/index.js': '' });
    expect((await paths()).files).toEqual(['src/a.ts']);
    await put({ '.lociignore': '!build/\n!node_modules/\n' });
    // node_modules stays out whatever the ignore files say.
    expect((await paths()).files).toEqual(['.lociignore', 'build/build.gradle', 'src/a.ts']);
  });

  it('ignores lockfiles and minified files unless re-included', async () => {
    await put({ 'package-lock.json': '{}', 'app.min.js': '', 'app.js': '', 'sub/yarn.lock': '' });
    expect((await paths()).files).toEqual(['app.js']);
    await put({ '.gitignore': '!package-lock.json\n' });
    expect((await paths()).files).toEqual(['.gitignore', 'app.js', 'package-lock.json']);
  });

  it('skips binary extensions and files over the size limit', async () => {
    await put({ 'logo.png': new Uint8Array([1, 2, 3]), 'big.txt': 'x'.repeat(2000), 'small.txt': 'x' });
    const { files, result } = await paths({ maxFileBytes: 1000 });
    expect(files).toEqual(['small.txt']);
    expect(result.skipped.binary).toBe(1);
    expect(result.skipped['too-large']).toBe(1);
  });

  it('follows symlinks inside the root, refuses ones leaving it, survives loops and dangling links', async () => {
    await put({ 'real/a.ts': 'export {}' });
    await writeFile(join(outside, 'secret.txt'), 'secret');
    await symlink(join(root, 'real'), join(root, 'alias'));
    await symlink(join(outside, 'secret.txt'), join(root, 'leak.txt'));
    await symlink(outside, join(root, 'leakdir'));
    await symlink(root, join(root, 'real', 'loop'));
    await symlink(join(root, 'missing.txt'), join(root, 'dangling.txt'));
    const { files, result } = await paths();
    expect(files).toEqual(['alias/a.ts', 'real/a.ts']);
    expect(result.skipped['symlink-outside-root']).toBe(2);
    expect(result.skipped['symlink-loop']).toBeGreaterThanOrEqual(1);
    expect(result.skipped.unreadable).toBe(1);
  });

  it('counts an unreadable directory instead of failing', async () => {
    await put({ 'locked/a.ts': '', 'open/b.ts': '' });
    await chmod(join(root, 'locked'), 0o000);
    const { files, result } = await paths();
    if (process.getuid?.() === 0) {
      // root reads through chmod 000, so the directory is not unreadable for this process
      expect(files).toEqual(['locked/a.ts', 'open/b.ts']);
    } else {
      expect(files).toEqual(['open/b.ts']);
      expect(result.skipped.unreadable).toBe(1);
    }
  });

  it('gives language, size and mtime per file, sorted by path', async () => {
    await put({ 'b.py': 'print(1)\n', 'a.go': 'package a\n' });
    const { result } = await paths();
    expect(result.files.map((file) => [file.path, file.language, file.size])).toEqual([
      ['a.go', 'go', 10],
      ['b.py', 'python', 9],
    ]);
    expect(result.files[0]!.mtimeMs).toBeGreaterThan(0);
  });

  it('reports a missing root and honours cancellation', async () => {
    await expect(walkFolder({ root: join(root, 'nope'), maxFileBytes: 10 })).rejects.toMatchObject({ code: 'ROOT_NOT_FOUND' });
    const controller = new AbortController();
    controller.abort();
    await expect(walkFolder({ root, maxFileBytes: 10, signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
