import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compiledModule, PACKAGE_ROOT, packageFile } from './package-files.js';

describe('package files', () => {
  it("finds loci's own package root, models and sources from wherever the code sits", () => {
    expect(JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).name).toBe('loci');
    expect(existsSync(packageFile('models/ranker-v1.json'))).toBe(true);
    expect(existsSync(packageFile('models/loci-static-v1.bin'))).toBe(true);
    // Under the TypeScript sources a compiled module is looked for in src/, where it is not:
    // callers then run the work in-process (the unit tests' way).
    expect(fileURLToPath(compiledModule('indexing/graph-worker.js'))).toBe(join(PACKAGE_ROOT, 'src', 'indexing', 'graph-worker.js'));
    expect(existsSync(compiledModule('indexing/graph-worker.js'))).toBe(false);
  });
});
