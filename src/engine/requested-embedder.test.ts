import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci } from './create-loci.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-requested-embedder-'));
  await writeFile(join(root, 'refund.py'), 'def issue_refund(charge):\n    """Refund the charge to the card."""\n    return charge.amount\n');
  const loci = createLoci({ root, config: { embedder: 'static', indexing: { worker: false } }, env: {} });
  await loci.index();
  await loci.close();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('an embedder the config names that does not exist', () => {
  it('is named in every search (which uses the index’s embedder) and refused by an index run', async () => {
    const loci = createLoci({ root, config: { embedder: 'sttaic', indexing: { worker: false } }, env: {} });
    try {
      const response = await loci.search('refund the charge');
      expect(response.results[0]?.path).toBe('refund.py');
      expect(response.warnings).toContainEqual(
        expect.stringMatching(/^Unknown embedder "sttaic"\. Did you mean "static"\? Known providers: none, static.*Searches use the embedder the index was built with/),
      );
      await expect(loci.index()).rejects.toMatchObject({ code: 'EMBEDDER_UNKNOWN' });
    } finally {
      await loci.close();
    }
  });

  it('adds no warning when the embedder is known', async () => {
    const loci = createLoci({ root, config: { embedder: 'static', indexing: { worker: false } }, env: {} });
    try {
      expect((await loci.search('refund the charge')).warnings).toEqual([]);
    } finally {
      await loci.close();
    }
  });
});
