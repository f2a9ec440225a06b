// Ignore files are untrusted content: they must not hang the walk, nor make it crawl.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ignore from 'ignore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyPaths } from './classify-paths.js';
import { MAX_IGNORE_FILE_BYTES, matcherFromPatterns } from './ignore-stack.js';
import { degreeOf, foldGlobstars } from './ignore-patterns.js';
import { MAX_FOLDER_DEPTH, walkFolder } from './walk-folder.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-ignore-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const walk = () => walkFolder({ root, maxFileBytes: 2_000_000 });

/** A chain of folders `a/a/a/…` `depth` deep with a file at every level; returns the deepest folder. */
async function chain(depth: number): Promise<string> {
  let folder = root;
  for (let level = 0; level < depth; level++) {
    folder = join(folder, 'a');
    await mkdir(folder);
    await writeFile(join(folder, 'f.ts'), `export const level${level} = ${level};\n`);
  }
  return folder;
}

describe('ignore files that are not plain small files', () => {
  it.runIf(process.platform !== 'win32')(
    'does not block on a FIFO named .gitignore or .lociignore, and reports it (walk and watcher path)',
    async () => {
      await mkdir(join(root, 'sub'));
      await writeFile(join(root, 'a.ts'), '');
      await writeFile(join(root, 'sub', 'b.ts'), '');
      execFileSync('mkfifo', [join(root, '.gitignore'), join(root, 'sub', '.lociignore')]);
      const result = await walk();
      expect(result.files.map((file) => file.path)).toEqual(['a.ts', 'sub/b.ts']);
      expect(result.skipped['special-file']).toBe(2);
      expect(result.warnings).toEqual([
        '.gitignore not read (not a regular file: a folder, FIFO, device or socket); its rules are not applied.',
        'sub/.lociignore not read (not a regular file: a folder, FIFO, device or socket); its rules are not applied.',
      ]);
      const classified = await classifyPaths({ root, maxFileBytes: 1000 }, ['sub/b.ts']);
      expect(classified.files.map((file) => file.path)).toEqual(['sub/b.ts']);
      expect(classified.warnings).toHaveLength(2);
    },
    30_000,
  );

  it('does not read an ignore file over 1 MB, nor follow a symlinked one, and says so', async () => {
    await mkdir(join(root, 'big'));
    await mkdir(join(root, 'linked'));
    await writeFile(join(root, 'big', '.gitignore'), `*.log\n${'#'.repeat(MAX_IGNORE_FILE_BYTES)}\n`);
    await writeFile(join(root, 'big', 'x.log'), '');
    await writeFile(join(root, 'rules'), '*.log\n');
    await symlink(join(root, 'rules'), join(root, 'linked', '.gitignore'));
    await writeFile(join(root, 'linked', 'y.log'), '');
    await writeFile(join(root, '.gitignore'), 'rules\n');
    const result = await walk();
    expect(result.files.map((file) => file.path).filter((path) => path.endsWith('.log'))).toEqual(['big/x.log', 'linked/y.log']);
    expect(result.warnings).toEqual([
      `big/.gitignore not read (${MAX_IGNORE_FILE_BYTES + 7} bytes, over the ${MAX_IGNORE_FILE_BYTES}-byte limit); its rules are not applied.`,
      'linked/.gitignore not read (a symbolic link); its rules are not applied.',
    ]);
  });
});

describe('ignore patterns whose matching cost explodes', () => {
  it('walks a deep chain under a 34-byte pattern with seven "**" in bounded time, and reports the pattern', async () => {
    // Before: matching grew as depth^7: ~1 s for a chain 30 deep, minutes for this one.
    await writeFile(join(root, '.gitignore'), '**/a/**/a/**/a/**/a/**/a/**/a/**/b\n*.log\n');
    await chain(60);
    const result = await walk();
    expect(result.files).toHaveLength(61);
    expect(result.warnings).toEqual(['.gitignore: 1 pattern(s) not applied, e.g. "**/a/**/a/**/a/**/a/**/a/**/a/**/b": more than 2 "**" spanning folders (matching it could take minutes).']);
  }, 60_000);

  it('keeps the meaning of ordinary patterns, folding runs of "**" as git does', () => {
    const patterns = [
      '*.log',
      '!keep.log',
      'build/',
      '/root-only',
      'docs/**/draft-*',
      '**/tmp/**/cache',
      'a/**/b/**/c',
      'x/**/',
      '**/**/**/**/**/**/**/**/**/**/**/**/z',
      'logs/**',
      '\\#hash',
      '*.min.*',
    ];
    const paths = [
      'app.log',
      'keep.log',
      'src/app.log',
      'build/',
      'src/build/',
      'root-only',
      'src/root-only',
      'docs/a/b/draft-1.md',
      'docs/draft-2.md',
      'docs/final.md',
      'tmp/cache',
      'tmp/x/y/cache',
      'src/tmp/q/cache',
      'a/b/c',
      'a/x/b/y/c',
      'a/c',
      'x/y/',
      'x/',
      'z',
      'q/r/z',
      'logs/2024/app.txt',
      '#hash',
      'app.min.js',
      'app.js',
    ];
    const ours = matcherFromPatterns(patterns);
    const reference = ignore({ allowRelativePaths: true }).add(patterns);
    const verdict = (result: { ignored: boolean; unignored: boolean }) => ({ ignored: result.ignored, unignored: result.unignored });
    for (const path of paths) expect(verdict(ours.test(path)), path).toEqual(verdict(reference.test(path)));
    expect(foldGlobstars('**/**/**/x')).toBe('**/x');
    expect(foldGlobstars('a/**/**/b/**/**')).toBe('a/**/b/**');
    expect([degreeOf('*.log'), degreeOf('a/**/b'), degreeOf('**/a/**/b'), degreeOf('a/**/b/**/c'), degreeOf('a/**/a/**/a/**/b'), degreeOf('x/**/')]).toEqual([1, 1, 2, 2, 3, 1]);
  });

  it('does not walk folders deeper than the cap, and counts them as too-deep', async () => {
    const deepest = await chain(MAX_FOLDER_DEPTH + 3);
    const result = await walk();
    expect(result.files).toHaveLength(MAX_FOLDER_DEPTH);
    expect(result.skipped['too-deep']).toBe(1);
    const tooDeep = `${'a/'.repeat(MAX_FOLDER_DEPTH + 1)}f.ts`;
    expect(deepest.endsWith('/a')).toBe(true);
    const classified = await classifyPaths({ root, maxFileBytes: 1000 }, [tooDeep]);
    expect(classified.gone).toEqual([{ path: tooDeep, reason: 'too-deep' }]);
  });
});
