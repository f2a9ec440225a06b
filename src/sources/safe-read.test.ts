import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSafeReader, rootRelativePath } from './safe-read.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-safe-read-'));
  await mkdir(join(root, 'docs'));
  await writeFile(join(root, 'docs', 'guide.md'), '# Guide\n');
  await writeFile(join(root, 'a.txt'), 'a'.repeat(600));
  await writeFile(join(root, 'b.txt'), 'b'.repeat(600));
  await writeFile(join(root, '.gitignore'), 'generated/\n');
  await mkdir(join(root, 'generated'));
  await writeFile(join(root, 'generated', 'out.txt'), 'generated\n');
  await symlink('docs/guide.md', join(root, 'GUIDE.md'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the safe reader', () => {
  it('normalises paths by their text and refuses those that leave the root', () => {
    expect(rootRelativePath(root, 'docs/../docs/guide.md')).toBe('docs/guide.md');
    expect(rootRelativePath(root, join(root, 'docs', 'guide.md'))).toBe('docs/guide.md');
    expect(() => rootRelativePath(root, 'docs/../../x')).toThrow(expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }));
    expect(() => rootRelativePath(root, '/etc/passwd')).toThrow(/\(an absolute path\) is outside the project folder/);
    expect(() => rootRelativePath(root, 'a\0b')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => rootRelativePath(root, '.')).toThrow(expect.objectContaining({ code: 'NOT_A_REGULAR_FILE' }));
  });

  it('serves links that stay inside the root, and refuses ignored files and folders', async () => {
    const reader = createSafeReader({ root, maxFileBytes: 1000 });
    expect(await reader.read('GUIDE.md')).toEqual({ path: 'GUIDE.md', text: '# Guide\n', bytes: 8 });
    await expect(reader.read('generated/out.txt')).rejects.toMatchObject({ code: 'PATH_EXCLUDED' });
    await expect(reader.read('docs')).rejects.toMatchObject({ code: 'NOT_A_REGULAR_FILE', message: expect.stringMatching(/folder/) });
    await expect(reader.read('missing.txt')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('keeps to its budget across reads, and can skip refusals in a batch', async () => {
    const reader = createSafeReader({ root, maxFileBytes: 1000, budgetBytes: 1000 });
    await reader.read('a.txt');
    await expect(reader.read('b.txt')).rejects.toMatchObject({ code: 'CONTEXT_TOO_LARGE' });
    expect(reader.bytesRead).toBe(600);
    const batch = await createSafeReader({ root, maxFileBytes: 1000 }).readMany(['a.txt', 'generated/out.txt', '../x'], { skipRefused: true });
    expect(batch.files.map((file) => file.path)).toEqual(['a.txt']);
    expect(batch.refused.map((entry) => [entry.path, entry.error.code])).toEqual([
      ['../x', 'PATH_OUTSIDE_ROOT'],
      ['generated/out.txt', 'PATH_EXCLUDED'],
    ]);
  });
});
