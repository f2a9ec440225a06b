import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci } from './create-loci.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-ready-'));
  await mkdir(join(root, 'src'));
  await writeFile(join(root, 'src', 'queue.ts'), 'export function flushJobs(queue: string[]): void {\n  // run every queued job in order\n  for (const job of queue) run(job);\n}\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('ready(): a server warms each root at start', () => {
  it('on a root with no index it does nothing and creates nothing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'loci-ready-empty-'));
    const loci = createLoci({ root: empty });
    await expect(loci.ready()).resolves.toBeUndefined();
    expect(existsSync(join(empty, '.loci'))).toBe(false);
    await loci.close();
    await rm(empty, { recursive: true, force: true });
  });

  it('on an indexed root it opens the store and builds the warm index; searches then answer from memory', async () => {
    const indexer = createLoci({ root });
    await indexer.index();
    await indexer.close();
    const loci = createLoci({ root });
    await loci.ready();
    const response = await loci.search('flush queued jobs');
    expect(response.retrieval.index).toBe('memory');
    expect(response.results[0]?.path).toBe('src/queue.ts');
    await loci.close();
  });
});
