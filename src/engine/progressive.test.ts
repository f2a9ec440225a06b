import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { createLoci } from './create-loci.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-progressive-'));
  await mkdir(join(root, 'src'));
  for (let file = 0; file < 30; file++)
    await writeFile(join(root, 'src', `f${file}.ts`), `export function compute${file}(value: number): number {\n  // step ${file} of the pipeline\n  return value + ${file};\n}\n`);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('progressive indexing', () => {
  it('makes everything searchable by BM25 first, then adds vectors; an interrupted phase 2 finishes next run', async () => {
    const loci = createLoci({ root, store: join(root, '.loci-a') });
    const seen: string[] = [];
    let lexicalHits = -1;
    let vectorHitsMidway = -1;
    await loci.index({
      progressive: 'always',
      onProgress: (event) => {
        if (event.type === 'phase-finished') seen.push(event.phase);
      },
    });
    expect(seen).toEqual(['lexical', 'vectors']);
    expect((await loci.search('compute17', { mode: 'lexical' })).results[0]?.path).toBe('src/f17.ts');
    expect((await loci.search('pipeline step value', { mode: 'vector' })).results.length).toBeGreaterThan(0);
    await loci.close();

    // Stop after phase 1: files are searchable lexically, marked pending, and have no vectors.
    const store = join(root, '.loci-b');
    const first = createLoci({ root, store });
    const controller = new AbortController();
    await first
      .index({
        progressive: 'always',
        signal: controller.signal,
        onProgress: (event) => {
          if (event.type === 'phase-finished' && event.phase === 'lexical') controller.abort();
        },
      })
      .catch((error: unknown) => expect((error as { code?: string }).code).toBe('ABORTED'));
    lexicalHits = (await first.search('compute17', { mode: 'lexical' })).results.length;
    vectorHitsMidway = (await first.search('pipeline step value', { mode: 'vector' })).results.length;
    await first.close();
    expect(lexicalHits).toBeGreaterThan(0);
    expect(vectorHitsMidway).toBe(0);
    const direct = openSqliteStore({ file: join(store, 'index.db') });
    expect((await direct.listCatalog()).every((entry) => entry.embedder === 'pending')).toBe(true);
    await direct.close();

    const second = createLoci({ root, store });
    const resumed = await second.index({ progressive: 'never' });
    expect(resumed.embeddings.computed).toBeGreaterThan(0);
    expect((await second.search('pipeline step value', { mode: 'vector' })).results.length).toBeGreaterThan(0);
    await second.close();
    const after = openSqliteStore({ file: join(store, 'index.db') });
    expect((await after.listCatalog()).some((entry) => entry.embedder === 'pending')).toBe(false);
    await after.close();
  });
});
