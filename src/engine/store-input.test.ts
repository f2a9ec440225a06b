import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { createLoci } from './create-loci.js';

let root: string;
let scratch: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-store-input-'));
  scratch = await mkdtemp(join(tmpdir(), 'loci-store-input-stores-'));
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src', 'invoice.ts'), 'export class InvoiceRepository {\n  // totals in cents\n}\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

describe('createLoci({ store })', () => {
  it('takes a Store the caller opened, for the index, and a second one for memory', async () => {
    const index = openSqliteStore({ file: join(scratch, 'index.db'), create: true });
    const memory = openSqliteStore({ file: join(scratch, 'memory.db'), create: true });
    const loci = createLoci({ root, store: { index, memory }, embedder: 'static' });
    try {
      expect(loci.storeLocation).toBe(join(scratch, 'index.db'));
      expect((await loci.index()).files.indexed).toBe(1);
      expect((await loci.search('InvoiceRepository')).results[0]?.path).toBe('src/invoice.ts');
      await (await loci.memory()).add({ namespace: 'agent', text: 'invoices are kept in cents' });
      expect(await (await loci.memory()).list({ namespaces: ['agent'] })).toHaveLength(1);
    } finally {
      await loci.close();
    }
    // The same files opened by path see what was written through the objects.
    const again = createLoci({ root, store: join(scratch, 'index.db'), embedder: 'static' });
    try {
      expect((await again.search('InvoiceRepository')).results[0]?.path).toBe('src/invoice.ts');
    } finally {
      await again.close();
    }
  });

  it('a Store alone serves the index; memory then asks for its own store, with the fix in the message', async () => {
    const loci = createLoci({ root, store: openSqliteStore({ file: join(scratch, 'alone.db'), create: true }), embedder: 'static' });
    try {
      await loci.index();
      await expect(loci.memory()).rejects.toMatchObject({ code: 'NOT_SUPPORTED', hint: expect.stringMatching(/store: \{ index, memory \}/) });
    } finally {
      await loci.close();
    }
  });

  it('refuses anything else with a clear error', () => {
    expect(() => createLoci({ root, store: { index: {} } as never })).toThrow(/store must be a path, a postgres:\/\/ URL, a Store/);
  });
});
