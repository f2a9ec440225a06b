import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/load.js';
import { Roots } from './roots.js';
import { createLoci } from '../../engine/create-loci.js';

describe('served roots', () => {
  it('serves a folder named twice once, and two folders of one name under two names', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'loci-roots-'));
    const roots = new Roots([join(workspace, 'a', 'proj'), `${join(workspace, 'a', 'proj')}/`, join(workspace, 'b', 'proj')], () => resolveConfig([]), {});
    try {
      expect(roots.list().map((root) => root.name)).toEqual(['proj', 'proj-2']);
      expect(roots.get('proj-2').path).toBe(join(workspace, 'b', 'proj'));
    } finally {
      await roots.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe('a served root whose store is deleted and made again', () => {
  it('gets a new engine on the new store at the next request, instead of STORE_GONE until a restart', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'loci-roots-gone-'));
    const root = join(workspace, 'proj');
    await mkdir(root);
    await writeFile(join(root, 'old.ts'), 'export function parseInvoiceTotals(text: string) { return text.length; }\n');
    const config = () => resolveConfig([{ origin: 'test', values: { embedder: 'none' } }]);
    const roots = new Roots([root], config, {});
    try {
      await roots.get().loci.index();
      expect((await roots.get().loci.search('parse invoice totals')).results[0]?.path).toBe('old.ts');
      const memory = await roots.get().loci.memory();
      await memory.add({ namespace: 'n', text: 'a note in the first store' });
      const first = roots.get().loci;
      // Another process: the store deleted, the folder changed and indexed again.
      await rm(join(root, '.loci'), { recursive: true, force: true });
      await rm(join(root, 'old.ts'));
      await writeFile(join(root, 'new.ts'), 'export function renderShippingLabel(order: string) { return order; }\n');
      const other = createLoci({ root, config: config() });
      await other.index();
      await other.close();
      const response = await roots.get().loci.search('render shipping label');
      expect(response.results.map((result) => result.path)).toEqual(['new.ts']);
      expect(roots.get().loci).not.toBe(first);
      // Memory is the new store's too (the old note went with the old files), and takes notes.
      const again = await roots.get().loci.memory();
      expect(await again.recall('note in the first store')).toEqual([]);
      await again.add({ namespace: 'n', text: 'a note in the second store' });
      expect((await again.recall('second store')).map((hit) => hit.record.text)).toEqual(['a note in the second store']);
      // Nothing replaced since: the same engine answers.
      const engine = roots.get().loci;
      await roots.get().loci.search('render');
      expect(roots.get().loci).toBe(engine);
    } finally {
      await roots.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});

describe('a store this server created, replaced before its next request', () => {
  it('answers STORE_GONE once, then the root is opened again (the error handlers report it: noteError)', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'loci-roots-created-'));
    const root = join(workspace, 'proj');
    const bystander = join(workspace, 'other');
    await mkdir(root);
    await mkdir(bystander);
    await writeFile(join(root, 'a.ts'), 'export function computeLedgerBalance(rows: number[]) { return rows.length; }\n');
    await writeFile(join(bystander, 'c.ts'), 'export function unrelated() { return 1; }\n');
    const config = () => resolveConfig([{ origin: 'test', values: { embedder: 'none' } }]);
    const roots = new Roots([root, bystander], config, {});
    try {
      await roots.get().loci.index(); // this server's engine creates the store
      await rm(join(root, '.loci'), { recursive: true, force: true });
      await writeFile(join(root, 'b.ts'), 'export function renderShippingLabel(order: string) { return order; }\n');
      const other = createLoci({ root, config: config() });
      await other.index();
      await other.close();
      // The file check first saw the new files, so it cannot tell: the engine meets STORE_GONE itself.
      const failed = await roots
        .get()
        .loci.search('render shipping label')
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failed).toMatchObject({ code: 'STORE_GONE' });
      const untouched = roots.get('other').loci;
      roots.noteError(failed);
      expect((await roots.get().loci.search('render shipping label')).results[0]?.path).toBe('b.ts');
      expect(roots.get('other').loci).toBe(untouched); // the error named the first root's store: the other one keeps its engine
    } finally {
      await roots.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
