import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

  it('phase 2 only attaches vectors: no chunk or lexical row is written again, and a warm engine finds them', async () => {
    const store = join(root, '.loci-c');
    const rows = () => {
      const db = new Database(join(store, 'index.db'), { readonly: true });
      try {
        return {
          chunks: db.prepare('SELECT id FROM chunks ORDER BY id').pluck().all() as number[],
          terms: db.prepare('SELECT chunk FROM chunk_terms ORDER BY chunk').pluck().all() as number[],
          pending: db.prepare("SELECT count(*) FROM files WHERE embedder = 'pending'").pluck().get() as number,
        };
      } finally {
        db.close();
      }
    };
    const loci = createLoci({ root, store });
    const controller = new AbortController();
    await loci
      .index({
        progressive: 'always',
        signal: controller.signal,
        onProgress: (event) => {
          if (event.type === 'phase-finished' && event.phase === 'lexical') controller.abort();
        },
      })
      .catch((error: unknown) => expect((error as { code?: string }).code).toBe('ABORTED'));
    const afterLexical = rows();
    expect(afterLexical.pending).toBe(30);
    // The warm engine holds the rows without vectors.
    const before = await loci.search('pipeline step value', { mode: 'vector' });
    expect(before.retrieval.index).toBe('memory');
    expect(before.results).toHaveLength(0);

    const phases: string[] = [];
    const summary = await loci.index({
      progressive: 'always',
      onProgress: (event) => {
        if (event.type === 'phase-finished') phases.push(`${event.phase}:${event.summary.files.indexed}`);
      },
    });
    // Phase 1 left the waiting files alone; phase 2 embedded them and wrote no row.
    expect(phases).toEqual(['lexical:0', 'vectors:0']);
    expect(summary.embeddings.computed).toBeGreaterThan(0);
    const afterVectors = rows();
    expect(afterVectors.chunks).toEqual(afterLexical.chunks);
    expect(afterVectors.terms).toEqual(afterLexical.terms);
    expect(afterVectors.pending).toBe(0);
    const after = await loci.search('pipeline step value', { mode: 'vector' });
    expect(after.retrieval.index).toBe('memory');
    expect(after.results.length).toBeGreaterThan(0);
    await loci.close();
    // A new process (a new engine) finds the same.
    const fresh = createLoci({ root, store });
    expect((await fresh.search('pipeline step value', { mode: 'vector' })).results.map((result) => result.chunkId)).toEqual(after.results.map((result) => result.chunkId));
    await fresh.close();
  });
});
