import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildContext } from '../context/build-context.js';
import { createLoci } from './create-loci.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loci-store-content-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'core.py'), 'def parse_args(argv):\n    """Parse the command line."""\n    return argv[1:]\n');
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('a store holds a folder or documents, never both', () => {
  it('refuses a folder run on a store of documents (it would remove them all), and status does not call them missing', async () => {
    const store = join(dir, 'documents-store');
    const loci = createLoci({ root: dir, store, config: { indexing: { worker: false } } });
    try {
      await loci.indexDocuments([
        { id: 'faq/1', text: 'Refunds go through the gateway.' },
        { id: 'faq/2', text: 'Partial refunds are split.' },
      ]);
      await expect(loci.index()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('would remove every document') });
      await expect(loci.indexPaths(['src/core.py'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      const status = await loci.status();
      expect(status.content).toBe('documents');
      expect(status.changes).toBeUndefined();
      expect(status.files).toBe(2);
      expect((await loci.search('refunds gateway')).results[0]?.path).toBe('faq/1');
      // Context from documents is retrieved: there are no files of theirs to read whole (it packed none).
      const built = await buildContext(loci, 'how do refunds work', { maxTokens: 2000 });
      expect(built.mode).toBe('retrieved');
      expect(built.sources.map((source) => source.path)).toContain('faq/1');
    } finally {
      await loci.close();
    }
  });

  it('refuses documents in a folder’s store (an id that is a file’s path would replace its chunks)', async () => {
    const loci = createLoci({ root: dir, store: join(dir, 'folder-store'), config: { indexing: { worker: false } } });
    try {
      await loci.index();
      await expect(loci.indexDocuments([{ id: 'src/core.py', text: 'overwritten by a document' }])).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('indexes a folder'),
      });
      const [hit] = (await loci.search('parse the command line', { mode: 'lexical' })).results;
      expect(hit?.text).toContain('def parse_args');
      expect((await loci.status()).content).toBeUndefined();
    } finally {
      await loci.close();
    }
  });
});
