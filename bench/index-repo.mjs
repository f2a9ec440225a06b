// Indexing throughput: cold index, no-op re-index and one-file re-index of a folder.
// Usage: node bench/index-repo.mjs [--repo DIR] [--embedder static|none] [--files N] [--json]
// Without --repo, a synthetic tree of N (default 10000) small source files is generated.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoci } from '../dist/index.js';
import { argument, createReporter, machine, rssMB } from './lib/report.mjs';

const reporter = createReporter();
const embedder = argument('embedder', 'static');
const work = mkdtempSync(join(tmpdir(), 'loci-bench-index-'));
let repo = argument('repo');
let label = repo;
if (!repo) {
  const count = Number(argument('files', '10000'));
  repo = join(work, 'tree');
  for (let index = 0; index < count; index++) {
    const folder = join(repo, `pkg${index % 50}`, `mod${index % 7}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `file${index}.ts`),
      `// module ${index}\nexport function compute${index}(value: number): number {\n  return value * ${index} + ${index % 13};\n}\n\nexport const label${index} = 'item ${index}';\n`,
    );
  }
  label = `synthetic ${count} files`;
}
const store = join(work, 'store');
const loci = createLoci({ root: repo, store, config: { embedder } });
try {
  let started = performance.now();
  const cold = await loci.index();
  const coldSeconds = (performance.now() - started) / 1000;
  reporter.row({
    engine: 'loci',
    op: 'index-cold',
    corpus: label,
    embedder,
    files: cold.files.indexed,
    chunks: cold.chunks.written,
    seconds: +coldSeconds.toFixed(2),
    filesPerSecond: Math.round(cold.files.indexed / coldSeconds),
    chunksPerSecond: Math.round(cold.chunks.written / coldSeconds),
    rssMB: rssMB(),
  });

  started = performance.now();
  const noop = await loci.index();
  reporter.row({ engine: 'loci', op: 'index-noop', corpus: label, embedder, files: noop.files.unchanged, seconds: +((performance.now() - started) / 1000).toFixed(3) });

  // One edited file: the time from save to searchable (re-index of that one file).
  const target = cold.files.indexed > 0 ? (await loci.search('function', { topK: 1, mode: 'lexical' })).results[0]?.path : undefined;
  if (target) {
    appendFileSync(join(repo, target), `\nexport const benchMarkerToken${Date.now()} = 1;\n`);
    started = performance.now();
    const one = await loci.index();
    reporter.row({ engine: 'loci', op: 'index-one-file', corpus: label, embedder, files: one.files.indexed, seconds: +((performance.now() - started) / 1000).toFixed(3) });
  }
} finally {
  await loci.close();
  rmSync(work, { recursive: true, force: true });
}
reporter.done();
if (!process.argv.includes('--json')) console.log(JSON.stringify({ machine: machine() }));
