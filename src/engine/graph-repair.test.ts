import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Store } from '../store/spec.js';
import { graphFileSum, keyListTrailer } from '../store/graph-file-sum.js';
import type { WarmIndex } from '../retrieve/warm/warm-index.js';

// The graph worker, replaced: each start is counted and finishes when the test says.
const workers = vi.hoisted(() => ({ started: [] as Array<{ finish: (rows: number | undefined) => void; stopped: boolean }> }));
vi.mock('../indexing/background-graph.js', () => ({
  BackgroundGraph: {
    forRun: () => {
      let finish: (rows: number | undefined) => void = () => undefined;
      const done = new Promise<number | undefined>((resolve) => {
        finish = resolve;
      });
      const worker = { finish, stopped: false };
      workers.started.push(worker);
      return {
        finish: () => done,
        stop: async () => {
          worker.stopped = true;
          finish(undefined);
        },
      };
    },
  },
}));

const { GraphRepair } = await import('./graph-repair.js');

/** A long-lived engine's index of 30,000 rows with no graph file (none saved, or dropped). */
const index = (embedderId = 'e@8') =>
  ({
    options: { graphFile: join(tmpdir(), `loci-no-graph-${process.pid}-${embedderId}.hnsw`), embedderId, dimensions: 8 },
    usesVectorGraph: false,
    lacksSavedGraph: false,
    size: 0,
  }) as unknown as WarmIndex;
const store = { countChunks: async () => 30_000, readState: async () => undefined } as unknown as Store;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

beforeEach(() => {
  workers.started.length = 0;
});

describe('a long-lived engine rebuilding its graph', () => {
  it('starts one worker for searches that arrive together', async () => {
    const repair = new GraphRepair();
    const warm = index();
    await Promise.all([repair.before(store, warm), repair.before(store, warm), repair.before(store, warm)]);
    expect(workers.started).toHaveLength(1);
    await repair.stop();
    expect(workers.started[0]?.stopped).toBe(true);
  });

  it('starts again after a stop (a run took over), not after a worker that saved too few rows', async () => {
    const repair = new GraphRepair();
    const warm = index();
    await repair.before(store, warm);
    await repair.stop();
    await settle();
    await repair.before(store, warm);
    expect(workers.started).toHaveLength(2);
    workers.started[1]?.finish(12);
    await settle();
    await repair.before(store, warm);
    expect(workers.started).toHaveLength(2);
  });

  it('stops the worker of an index another embedder replaced, and starts one for the new index', async () => {
    const repair = new GraphRepair();
    await repair.before(store, index('old@8'));
    await repair.before(store, index('new@8'));
    expect(workers.started.map((worker) => worker.stopped)).toEqual([true, false]);
    await repair.stop();
  });

  it("takes a graph file saved for another store for none: deletes it and starts the worker; leaves this store's alone", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loci-graph-repair-'));
    try {
      const graphFile = join(folder, 'vectors.hnsw');
      const warm = { ...index(), options: { ...index().options, graphFile } } as unknown as WarmIndex;
      const ofStore = (instance: string) => ({ countChunks: async () => 30_000, readState: async () => instance }) as unknown as Store;
      const save = (instance: string) => {
        writeFileSync(graphFile, Buffer.alloc(64, 1));
        writeFileSync(`${graphFile}.keys`, Buffer.from(Int32Array.of(1, 2, ...keyListTrailer(graphFileSum(graphFile), instance)).buffer));
      };
      save('this-store');
      await new GraphRepair().before(ofStore('this-store'), warm);
      expect(workers.started).toHaveLength(0);
      expect(existsSync(graphFile)).toBe(true);
      save('another-store');
      const repair = new GraphRepair();
      await repair.before(ofStore('this-store'), warm);
      expect(workers.started).toHaveLength(1);
      expect(existsSync(graphFile) || existsSync(`${graphFile}.keys`)).toBe(false);
      await repair.stop();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('starts nothing below the threshold or while the graph is in use', async () => {
    const repair = new GraphRepair();
    await repair.before({ countChunks: async () => 19_999, readState: async () => undefined } as unknown as Store, index());
    await repair.before(store, { ...index(), usesVectorGraph: true } as unknown as WarmIndex);
    expect(workers.started).toHaveLength(0);
  });
});
