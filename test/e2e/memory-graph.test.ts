// Memory past the graph threshold, driven through the built library (dist/): the graph worker
// file exists only after the build. Recall never builds the graph on the caller's thread (at
// 40k records that blocked every caller of a server for seconds): it scans exactly while a
// worker thread builds and saves the graph, then maps the saved file.
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Library = typeof import('../../src/index.js');
let library: Library;
let workspace: string;

beforeAll(async () => {
  library = (await import(join(process.cwd(), 'dist/index.js'))) as Library;
  workspace = await mkdtemp(join(tmpdir(), 'loci-memory-graph-'));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('memory past the graph threshold', () => {
  it('recalls exactly at once, builds the graph on a worker meanwhile, then answers from the saved graph the same way', async () => {
    const loci = library.createLoci({ root: workspace });
    try {
      const memory = await loci.memory();
      // Notes of eight words drawn from 3,000 (a seeded generator): distinct, as real notes are.
      let seed = 2_463_534_242;
      const next = () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) / 4_294_967_296;
      };
      const words = Array.from({ length: 3_000 }, (_, index) => `w${index.toString(36)}${'aeiou'[index % 5]}`);
      const records = Array.from({ length: 20_500 }, (_, index) => ({
        namespace: `agent/${index % 7}`,
        text: `${Array.from({ length: 8 }, () => words[Math.floor(next() * words.length)]).join(' ')} (note ${index})`,
      }));
      const probes = Array.from({ length: 20 }, (_, index) => records[index * 1_013]?.text as string);
      for (let start = 0; start < records.length; start += 2_500) await memory.addMany(records.slice(start, start + 2_500), { dedupe: false });
      await memory.add({ namespace: 'agent/vault', text: 'the vault code is 4242' });

      const graphFiles = () => readdirSync(join(workspace, '.loci')).filter((name) => /^memory-vectors-.*\.hnsw$/.test(name));
      expect(graphFiles()).toEqual([]);
      const exact = await memory.recall('vault code', { mode: 'vector', topK: 5 });
      expect(exact[0]?.record.text).toBe('the vault code is 4242');
      const exactProbes = await Promise.all(probes.map((probe) => memory.recall(probe, { mode: 'vector', topK: 1 })));

      // The worker saves the graph (bounded wait), and later recalls map it.
      const deadline = Date.now() + 120_000;
      while (graphFiles().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      expect(graphFiles()).toHaveLength(1);
      // A recall maps the saved graph (retried while the worker hands it over).
      await memory.recall('vault code', { mode: 'vector', topK: 5 });
      for (let tries = 0; tries < 20 && !(memory as unknown as { warm?: { usesVectorGraph: boolean } }).warm?.usesVectorGraph; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await memory.recall('vault code', { mode: 'vector', topK: 5 });
      }
      expect((memory as unknown as { warm?: { usesVectorGraph: boolean } }).warm?.usesVectorGraph).toBe(true);
      // The graph is approximate: asked for notes it holds, it gives exact search's best answer
      // (allowed one miss in 20).
      const graphProbes = await Promise.all(probes.map((probe) => memory.recall(probe, { mode: 'vector', topK: 1 })));
      const same = graphProbes.filter((hits, index) => hits[0]?.record.id === exactProbes[index]?.[0]?.record.id).length;
      expect(same).toBeGreaterThanOrEqual(19);
      expect(existsSync(join(workspace, '.loci', `${graphFiles()[0]}.keys`))).toBe(true);
    } finally {
      await loci.close();
    }
  }, 300_000);
});
