// The SQLite store's write path alone: the peer bench's real chunks, prepared and embedded in
// this process first (not timed), then written in groups of 2,048 chunks as an indexing run
// writes them, with the time each statement takes and what is left (term encoding, commits).
// Usage: node bench/sqlite-writes.mjs [--n 100000] [--build DIR] [--pragma 'wal_autocheckpoint=65536'] [--bulk] [--json]
//   --bulk: call the store's bulkWrites(true) first, as a big indexing run does.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { realChunks, sizeTo } from './lib/dataset.mjs';
import { argument, createReporter } from './lib/report.mjs';

const reporter = createReporter();
const build = resolve(argument('build', new URL('..', import.meta.url).pathname));
const n = Number(argument('n', '100000'));
const pragma = argument('pragma', '');
const load = (path) => import(pathToFileURL(join(build, 'dist', path)).href);
const { prepareFile } = await load('indexing/prepare-file.js');
const { EMBEDDED_FIELDS } = await load('indexing/prepare-chunks.js');
const { TermTable } = await load('lexical/codec.js');
const { openSqliteStore } = await load('store/sqlite/sqlite-store.js');
const { createStaticEmbedder } = await load('embed/static/static-embedder.js');
const { chunks } = sizeTo(await realChunks(n, []), n, 11);
const terms = new TermTable();
const model = createStaticEmbedder();
const files = [];
for (const chunk of chunks) {
  const prepared = await prepareFile({ path: chunk.id, text: chunk.text, language: 'text', chunking: { tokenBudget: 512, windowLines: 60, windowOverlap: 10 }, pathIsContent: false }, terms);
  const { embeddings } = await model.doEmbedTermStats({ stats: prepared.chunks.map((one) => one.write.termStats), fields: EMBEDDED_FIELDS, purpose: 'document' });
  prepared.chunks.forEach((one, index) => {
    one.write.vector = embeddings[index];
  });
  files.push({ path: chunk.id, prepared });
}
const dir = mkdtempSync(join(tmpdir(), 'loci-sqlite-writes-'));
try {
  const store = openSqliteStore({ file: join(dir, 'index.db'), create: true });
  // The statements' own time, by name (the store's prepared statements, wrapped).
  const spent = {};
  for (const [name, statement] of Object.entries(store.statements)) {
    for (const method of ['run', 'all', 'get']) {
      const original = statement[method].bind(statement);
      statement[method] = (...args) => {
        const started = performance.now();
        try {
          return original(...args);
        } finally {
          spent[name] = (spent[name] ?? 0) + performance.now() - started;
        }
      };
    }
  }
  if (pragma) store.db.pragma(pragma);
  if (process.argv.includes('--bulk')) await store.bulkWrites(true);
  const started = performance.now();
  let group = [];
  let groupChunks = 0;
  for (const [index, { path, prepared }] of files.entries()) {
    group.push({
      entry: { path, size: 1, mtimeMs: 0, contentHash: `h${index}`, language: 'text', chunker: 'c', embedder: 'static', chunkCount: prepared.chunks.length, indexedAt: 0 },
      chunks: prepared.chunks.map((one) => one.write),
    });
    groupChunks += prepared.chunks.length;
    if (groupChunks >= 2048 || index === files.length - 1) {
      await store.writeFiles(group);
      group = [];
      groupChunks = 0;
    }
  }
  const writtenMs = performance.now() - started;
  const walMb = Math.round(statSync(join(dir, 'index.db-wal')).size / 2 ** 20);
  if (process.argv.includes('--bulk')) await store.bulkWrites(false);
  const totalMs = performance.now() - started;
  const statementsMs = Object.values(spent).reduce((sum, value) => sum + value, 0);
  await store.close();
  const top = Object.entries(spent)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([name, ms]) => `${name} ${Math.round(ms)}`)
    .join(', ');
  reporter.row({
    n,
    pragma: pragma || '-',
    bulk: process.argv.includes('--bulk'),
    writeMs: Math.round(writtenMs),
    withFinalCheckpointMs: Math.round(totalMs),
    statementsMs: Math.round(statementsMs),
    restMs: Math.round(writtenMs - statementsMs),
    walMb,
    top,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
reporter.done();
