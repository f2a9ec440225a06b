// The PostgreSQL store beside the embedded SQLite one, on the same real chunks:
//   - indexing throughput with 1 indexer, and with N concurrent indexer processes writing
//     into one namespace (their commits serialise on the namespace's advisory lock);
//   - query latency p50/p95/p99, lexical / vector / hybrid, for the warm engine (in-memory
//     index loaded from the store: identical ranking on both) and the cold path (the store's
//     own search: FTS5 + vector scan on SQLite, tsvector + pgvector HNSW on Postgres);
//   - pgvector HNSW recall@10 at the store's ef_search against exact search in Postgres.
// Usage: node --expose-gc bench/postgres.mjs [--n 100000] [--queries 100] [--writers 4]
//          [--url postgres://…]   (default: PGlite + pgvector on 127.0.0.1, started here)
// PGlite is Postgres compiled to WebAssembly, single-threaded, serving every connection in
// turn: its numbers are a floor for a real server, not a measure of one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createLoci } from '../dist/index.js';
import { benchQueries, realChunks } from './lib/dataset.mjs';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
let handle;

if (process.argv[2] === '--child') {
  // One concurrent indexer: its slice of the documents into the shared namespace.
  const [, , , url, from, to, n] = process.argv;
  const real = await realChunks(Number(n));
  const loci = createLoci({ root: tmpdir(), store: url });
  await loci.indexDocuments(real.slice(Number(from), Number(to)).map((chunk) => ({ id: chunk.id, text: chunk.text })));
  await loci.close();
  process.exit(0);
}

const reporter = createReporter();
const n = Number(argument('n', '100000'));
const queryCount = Number(argument('queries', '100'));
const writers = Number(argument('writers', '4'));
const log = (message) => process.stderr.write(`${message}\n`);

let url = argument('url', '');
let stopServer = async () => undefined;
if (!url) {
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  await server.start();
  url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
  stopServer = async () => {
    await server.stop();
    await db.close();
  };
  log(`PGlite + pgvector on ${url}`);
}
const withNamespace = (namespace) => `${url}${url.includes('?') ? '&' : '?'}namespace=${namespace}`;

const real = await realChunks(n);
const documents = real.map((chunk) => ({ id: chunk.id, text: chunk.text }));
log(`documents: ${documents.length}`);
const dir = mkdtempSync(join(tmpdir(), 'loci-bench-pg-'));
const stores = { sqlite: join(dir, 'sqlite-store'), postgres: withNamespace(`bench_${process.pid}`) };

for (const [name, store] of Object.entries(stores)) {
  const loci = createLoci({ root: dir, store });
  const started = performance.now();
  const summary = await loci.indexDocuments(documents);
  const seconds = (performance.now() - started) / 1000;
  await loci.close();
  const chunks = summary.chunks.total;
  reporter.row({
    engine: `loci-${name}`,
    op: 'index',
    n: documents.length,
    writers: 1,
    seconds: round(seconds),
    docsPerSec: Math.round(documents.length / seconds),
    chunks,
    chunksPerSec: Math.round(chunks / seconds),
  });
  log(`${name}: indexed in ${round(seconds)} s`);
}

if (writers > 1) {
  const shared = withNamespace(`bench_many_${process.pid}`);
  const slice = Math.ceil(documents.length / writers);
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: writers },
      (_, writer) =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, [join(here, 'postgres.mjs'), '--child', shared, String(writer * slice), String(Math.min(documents.length, (writer + 1) * slice)), String(n)], {
            stdio: 'inherit',
          });
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`indexer ${writer} exited with ${code}`))));
        }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const check = createLoci({ root: dir, store: shared });
  const chunks = (await check.status({ checkChanges: false })).chunks;
  await check.close();
  reporter.row({
    engine: 'loci-postgres',
    op: 'index',
    n: documents.length,
    writers,
    seconds: round(seconds),
    docsPerSec: Math.round(documents.length / seconds),
    chunks,
    chunksPerSec: Math.round(chunks / seconds),
  });
  log(`${writers} concurrent indexers: ${round(seconds)} s, ${chunks} chunks stored`);
}

// Query latency: warm (in-memory) and cold (the store's own search), engines taking turns.
const queries = benchQueries(queryCount, 7);
const engines = [];
for (const [name, store] of Object.entries(stores)) {
  for (const inMemory of [true, false]) {
    const loci = createLoci({ root: dir, store, inMemory });
    await loci.search(queries[0], { topK: 10 });
    engines.push({ name: `loci-${name}-${inMemory ? 'warm' : 'cold'}`, loci, times: { lexical: [], vector: [], hybrid: [] } });
  }
}
for (const [index, query] of queries.entries()) {
  for (let turn = 0; turn < engines.length; turn++) {
    const engine = engines[(index + turn) % engines.length];
    for (const mode of ['lexical', 'vector', 'hybrid']) {
      const started = performance.now();
      await engine.loci.search(query, { mode, topK: 10 });
      if (index >= 3) engine.times[mode].push(performance.now() - started);
    }
  }
}
for (const engine of engines) {
  for (const [op, times] of Object.entries(engine.times)) reporter.row({ engine: engine.name, op, n: documents.length, ...summarize(times) });
}

// pgvector HNSW recall@10 at the store's ef_search, against exact search in Postgres itself.
const model = await engines[0].loci.embedder();
const { embeddings } = await model.doEmbed({ values: queries, purpose: 'query' });
const client = new pg.Client({ connectionString: url });
await client.connect();
const schema = `"loci_bench_${process.pid}"`;
const embedder = (await client.query(`SELECT value FROM ${schema}.meta WHERE key = 'embedder'`)).rows[0].value;
const literal = (vector) => `[${Array.from(vector).join(',')}]`;
const annTimes = [];
let recall = 0;
for (const vector of embeddings) {
  const exact = await client.query(
    `SELECT c.id FROM ${schema}.chunks c JOIN ${schema}.embeddings e ON e.embedder = $2 AND e.content_hash = c.content_hash ORDER BY e.vector <=> $1::vector, c.id LIMIT 10`,
    [literal(vector), embedder],
  );
  const store = await storeHandle();
  const started = performance.now();
  const rows = await store.searchVectors({ embedderId: embedder, vector: Float32Array.from(vector), limit: 10 });
  annTimes.push(performance.now() - started);
  const truth = new Set(exact.rows.map((row) => row.id));
  recall += rows.filter((row) => truth.has(row.rowId)).length / Math.max(1, truth.size);
}
reporter.row({ engine: 'pgvector-hnsw', op: 'vector', n: documents.length, ...summarize(annTimes), recall10: round(recall / embeddings.length, 3) });
await client.end();

for (const engine of engines) await engine.loci.close();
await (await storeHandle()).close();
await stopServer();
rmSync(dir, { recursive: true, force: true });
reporter.done();
const about = createReporter([]);
about.row({ bench: 'machine', ...machine(), store: url.includes('127.0.0.1') ? 'PGlite 0.5.14 (PostgreSQL 18.6, pgvector 0.8.7, WebAssembly) on 127.0.0.1' : 'external server' });
about.done();

async function storeHandle() {
  if (!handle) {
    const { openStore, resolveStoreLocation } = await import('../dist/store/location.js');
    handle = await openStore(resolveStoreLocation(dir, stores.postgres), { create: false });
  }
  return handle;
}

function round(value, digits = 2) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
