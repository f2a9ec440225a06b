import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// This process behaves as a machine where usearch did not install and the TypeScript grammar
// cannot load: both must be said, not silently degraded.
vi.mock('../retrieve/warm/usearch-graph.js', async (original) => ({
  ...(await original<typeof import('../retrieve/warm/usearch-graph.js')>()),
  vectorGraphAvailable: () => false,
}));
vi.mock('../chunk/code/load-parser.js', async (original) => {
  const real = await original<typeof import('../chunk/code/load-parser.js')>();
  return { ...real, parserFor: (grammar: string) => (grammar === 'typescript' ? Promise.reject(new Error('WASM compile failed')) : real.parserFor(grammar)) };
});

const { createLoci } = await import('./create-loci.js');

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-degraded-'));
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src', 'invoice.ts'), 'export class InvoiceRepository {\n  total(): number {\n    return 1;\n  }\n}\n');
  await writeFile(join(root, 'src', 'tax.py'), 'def tax_rate(country):\n    return 0.2\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('degraded states are reported', () => {
  it('a grammar that fails to load: the file is still indexed by line windows, and the run and status say why', async () => {
    const loci = createLoci({ root, embedder: 'static', config: { indexing: { worker: false } } });
    try {
      const summary = await loci.index();
      expect(summary.files.indexed).toBe(2);
      expect(summary.warnings.join('\n')).toMatch(/src\/invoice\.ts \(tree-sitter: the typescript grammar failed to load \(WASM compile failed\)/);
      expect(summary.warnings.join('\n')).not.toMatch(/tax\.py/);
      expect((await loci.search('InvoiceRepository total', { mode: 'lexical' })).results[0]?.path).toBe('src/invoice.ts');
      const status = await loci.status();
      expect(status.warnings.some((warning) => warning.includes('typescript grammar failed to load'))).toBe(true);
      // No usearch here: status says vector search scans exactly, and how to fix it.
      expect(status.warnings).toContainEqual(expect.stringMatching(/usearch is not installed.*npm install usearch/));
    } finally {
      await loci.close();
    }
  });
});
