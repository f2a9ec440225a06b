import { describe, expect, it } from 'vitest';
import { redactPaths } from './wire-paths.js';

const roots = [
  { name: 'repo', path: '/home/alice/work/repo' },
  { name: 'inner', path: '/home/alice/work/repo/packages/inner' },
];

describe('redactPaths', () => {
  it('names served roots and keeps only the last part of other absolute paths', () => {
    expect(redactPaths('Cannot read nope.ts in /home/alice/work/repo (ENOENT).', roots)).toBe('Cannot read nope.ts in repo (ENOENT).');
    expect(redactPaths('Cannot read /home/alice/work/repo/src/a.ts', roots)).toBe('Cannot read src/a.ts');
    expect(redactPaths('open /home/alice/work/repo/packages/inner/x.ts', roots)).toBe('open x.ts');
    expect(redactPaths("EACCES: permission denied, open '/var/lib/loci/store/index.db'", roots)).toBe("EACCES: permission denied, open '…/index.db'");
    expect(redactPaths('store C:\\Users\\alice\\loci\\index.db is busy', roots)).toBe('store …/index.db is busy');
  });

  it('leaves relative paths, URLs and plain text alone', () => {
    for (const text of ['No such file src/invoice.ts.', 'Check http://127.0.0.1:7411/v1/search.', 'topK must be 1-1000; got 2/3.']) expect(redactPaths(text, roots)).toBe(text);
  });
});
