import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoci } from '../../engine/create-loci.js';
import { resolveStoreLocation } from '../../store/location.js';
import type { WorkerJob } from './protocol.js';
import { runWorkerJob } from './worker-job.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-worker-job-'));
  await mkdir(join(root, 'src'));
  await writeFile(
    join(root, 'src', 'invoice.ts'),
    'export class InvoiceRepository {\n  // renders totals in cents\n  total(lines: number[]): number {\n    return lines.reduce((sum, line) => sum + line, 0);\n  }\n}\n',
  );
  await writeFile(join(root, 'src', 'refund.ts'), 'export function refundCharge(id: string): string {\n  return `refunded ${id}`;\n}\n');
  await writeFile(join(root, 'README.md'), '# Billing\n\nInvoices and refunds for the shop.\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What the worker thread receives, after the trip through structured clone. */
function workerJob(store: string, config: WorkerJob['config'], paths?: string[]): WorkerJob {
  return structuredClone({
    root,
    config,
    excludeAbsolutePaths: [store],
    progressive: true,
    location: resolveStoreLocation(root, store),
    embedderSpec: 'static',
    env: {},
    niceness: 0,
    ...(paths ? { paths } : {}),
  });
}

describe('the indexing worker job, run from source', () => {
  it('indexes what the in-process engine indexes, with the same results', async () => {
    const inProcess = createLoci({ root, store: join(root, '.loci-in'), embedder: 'static', config: { indexing: { worker: false, progressive: 'always' } } });
    const viaWorkerJob = join(root, '.loci-worker');
    try {
      const events: string[] = [];
      const direct = await inProcess.index();
      const summary = await runWorkerJob(workerJob(viaWorkerJob, inProcess.config), { onProgress: (event) => events.push(event.type) });
      expect(summary.files).toEqual(direct.files);
      expect(summary.chunks).toEqual(direct.chunks);
      expect(events).toContain('phase-finished');
      expect(events).toContain('index-finished');

      const reader = createLoci({ root, store: viaWorkerJob, embedder: 'static', config: { indexing: { worker: false } } });
      try {
        for (const query of ['InvoiceRepository', 'how are refunds charged', 'totals in cents']) {
          const expected = (await inProcess.search(query, { topK: 3 })).results.map((result) => [result.path, result.startLine]);
          const actual = (await reader.search(query, { topK: 3 })).results.map((result) => [result.path, result.startLine]);
          expect({ query, results: actual }).toEqual({ query, results: expected });
        }
        // The recorded embedder is the one the job resolved, so a later search recreates it.
        expect((await reader.status()).embedder).toMatch(/^static:/);
      } finally {
        await reader.close();
      }
    } finally {
      await inProcess.close();
    }
  });

  it('re-indexes only the paths it is given, and nothing on an unchanged second run', async () => {
    const store = join(root, '.loci-paths');
    const engine = createLoci({ root, store, embedder: 'static', config: { indexing: { worker: false } } });
    try {
      await engine.index();
      await writeFile(join(root, 'src', 'refund.ts'), 'export function refundCharge(id: string): string {\n  return `refunded twice ${id}`;\n}\n');
      const some = await runWorkerJob(workerJob(store, engine.config, ['src/refund.ts']));
      expect(some.files.indexed).toBe(1);
      const again = await runWorkerJob(workerJob(store, engine.config));
      expect(again.files.indexed).toBe(0);
      expect(again.embeddings.computed).toBe(0);
    } finally {
      await engine.close();
    }
  });

  it('fails with the embedder error code when the spec cannot be resolved', async () => {
    const engine = createLoci({ root, store: join(root, '.loci-bad'), config: { indexing: { worker: false } } });
    try {
      await expect(runWorkerJob({ ...workerJob(join(root, '.loci-bad'), engine.config), embedderSpec: 'no-such-provider' })).rejects.toMatchObject({ code: 'EMBEDDER_UNKNOWN' });
    } finally {
      await engine.close();
    }
  });
});
