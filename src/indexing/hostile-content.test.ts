// A hostile tree must not stop a run: each finding below once failed or hung `loci index`.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoci } from '../engine/create-loci.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { emptyTally, indexItems, type IndexItem } from './index-items.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-hostile-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('indexing hostile content', () => {
  it('indexes 8,000-deep nested TypeScript and Rust through line windows, reports the fallback, and indexes the rest', async () => {
    await writeFile(join(root, 'deep.ts'), `${'function f(){'.repeat(8000)}${'}'.repeat(8000)}\n`);
    await writeFile(join(root, 'deep.rs'), `${'mod a{'.repeat(8000)}${'}'.repeat(8000)}\n`);
    await writeFile(join(root, 'fine.ts'), 'export function parseInvoiceTotal(lines: number[]): number {\n  return lines.reduce((sum, line) => sum + line, 0);\n}\n');
    const loci = createLoci({ root, embedder: 'none' });
    const fallbacks: string[] = [];
    const summary = await loci.index({ onProgress: (event) => event.type === 'file-indexed' && event.fallback && fallbacks.push(event.path) });
    expect(summary.files.indexed).toBe(3);
    expect(fallbacks.sort()).toEqual(['deep.rs', 'deep.ts']);
    expect(summary.warnings.join('\n')).toMatch(/2 file\(s\) cut into line windows .*deep\.rs \(tree-sitter: Definitions nest deeper than 32 levels/);
    expect((await loci.search('parseInvoiceTotal', { mode: 'lexical' })).results[0]?.path).toBe('fine.ts');
    await loci.close();
  });

  it('skips a file whose read or chunking throws, keeps its reason and message, and goes on', async () => {
    const store = openSqliteStore({ file: join(root, 'index.db'), create: true });
    const good = (path: string): IndexItem => ({
      path,
      language: 'typescript',
      size: 10,
      mtimeMs: 1,
      load: async () => ({ ok: true, text: `export const ${path.replace(/\W/g, '_')} = 1;\n`, bytes: new TextEncoder().encode(path), invalidUtf8: false }),
    });
    // Content that throws when the chunker reads it: the stand-in for any chunker fault.
    const poisoned = {
      ok: true as const,
      bytes: new Uint8Array([1]),
      invalidUtf8: false,
      get text(): string {
        throw new RangeError('Maximum call stack size exceeded');
      },
    };
    const items: IndexItem[] = [
      good('a.ts'),
      { path: 'b.ts', language: 'typescript', size: 1, mtimeMs: 1, load: async () => poisoned },
      { path: 'c.ts', language: 'typescript', size: 1, mtimeMs: 1, load: () => Promise.reject(new Error('EIO: i/o error')) },
      good('d.ts'),
    ];
    const skipped: Array<{ path: string; reason: string; message?: string }> = [];
    const tally = emptyTally();
    await indexItems(
      items,
      {
        store,
        model: undefined,
        embedderId: 'none',
        chunker: 'test',
        pathIsContent: true,
        chunking: { tokenBudget: 500, windowLines: 100, windowOverlap: 10 },
        progress: { done: 0, total: items.length },
        onProgress: (event) => event.type === 'file-skipped' && skipped.push({ path: event.path, reason: event.reason, ...(event.message ? { message: event.message } : {}) }),
      },
      tally,
    );
    expect(tally.added).toBe(2);
    expect(tally.skipped).toEqual({ 'chunk-error': 1, unreadable: 1 });
    expect(skipped).toEqual([
      { path: 'b.ts', reason: 'chunk-error', message: 'Maximum call stack size exceeded' },
      { path: 'c.ts', reason: 'unreadable', message: 'EIO: i/o error' },
    ]);
    expect(tally.failures.examples).toEqual(['b.ts: Maximum call stack size exceeded']);
    expect((await store.listCatalog()).map((entry) => entry.path).sort()).toEqual(['a.ts', 'd.ts']);
    await store.close();
  });

  it.runIf(process.platform !== 'win32')(
    'finishes with FIFOs named .gitignore and .lociignore, and reports them',
    async () => {
      await mkdir(join(root, 'sub'));
      await writeFile(join(root, 'a.ts'), 'export const alpha = 1;\n');
      await writeFile(join(root, 'sub', 'b.ts'), 'export const beta = 2;\n');
      execFileSync('mkfifo', [join(root, '.gitignore'), join(root, 'sub', '.lociignore')]);
      const loci = createLoci({ root, embedder: 'none' });
      const summary = await loci.index();
      expect(summary.files.indexed).toBe(2);
      expect(summary.skipped['special-file']).toBe(2);
      expect(summary.warnings).toEqual(
        expect.arrayContaining([
          '.gitignore not read (not a regular file: a folder, FIFO, device or socket); its rules are not applied.',
          'sub/.lociignore not read (not a regular file: a folder, FIFO, device or socket); its rules are not applied.',
        ]),
      );
      await loci.close();
    },
    30_000,
  );
});
