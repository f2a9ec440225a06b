// Memory: write throughput and recall latency at scale (default 100k records in 100
// namespaces), offline static embedder. Records are real sentences: SciFact abstracts split
// into sentences plus LoCoMo utterances, cycled (with a counter) to reach the target size.
// Queries are LoCoMo questions, recalled within one namespace and across all of them.
// Usage: node bench/memory.mjs [--records N] [--namespaces N] [--queries N] [--json]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createLoci } from '../dist/index.js';
import { argument, createReporter, machine, rssMB, summarize } from './lib/report.mjs';
import { EVAL_DIR } from './lib/eval-dir.mjs';

const reporter = createReporter();
const total = Number(argument('records', '100000'));
const namespaceCount = Number(argument('namespaces', '100'));
const queryCount = Number(argument('queries', '500'));
const evalDir = pathToFileURL(`${EVAL_DIR}/`);
const lines = (name) => {
  const raw = name.endsWith('.gz') ? gunzipSync(readFileSync(new URL(name, evalDir))).toString('utf8') : readFileSync(new URL(name, evalDir), 'utf8');
  return raw
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
};

const sentences = [];
for (const doc of lines('scifact/corpus.jsonl.gz')) for (const sentence of doc.text.split(/(?<=[.!?])\s+/)) if (sentence.length > 30) sentences.push(sentence);
for (const doc of lines('locomo/corpus.jsonl')) sentences.push(doc.text);
const questions = lines('locomo/queries.jsonl')
  .slice(0, queryCount)
  .map((query) => query.text);

const work = mkdtempSync(join(tmpdir(), 'loci-bench-memory-'));
const loci = createLoci({ root: work, config: { embedder: 'static' } });
try {
  const memory = await loci.memory();
  const time0 = Date.UTC(2024, 0, 1);
  const inputs = Array.from({ length: total }, (_, index) => {
    const base = sentences[index % sentences.length];
    const cycle = Math.floor(index / sentences.length);
    return { namespace: `agent/a${index % namespaceCount}`, text: cycle === 0 ? base : `${base} (#${cycle})`, time: time0 + index * 60_000, kind: 'note' };
  });

  // Single adds: one transaction each, as an agent appends after every answer.
  const singles = 1000;
  let started = performance.now();
  for (let index = 0; index < singles; index++) await memory.add({ namespace: 'agent/singles', text: sentences[(index * 13) % sentences.length], kind: 'note' }, { dedupe: false });
  const singleSeconds = (performance.now() - started) / 1000;
  reporter.row({ bench: 'memory-write', mode: 'add (one per call)', records: singles, seconds: round(singleSeconds), recordsPerSec: Math.round(singles / singleSeconds) });

  started = performance.now();
  for (let start = 0; start < inputs.length; start += 5000) await memory.addMany(inputs.slice(start, start + 5000), { dedupe: false });
  const batchSeconds = (performance.now() - started) / 1000;
  reporter.row({ bench: 'memory-write', mode: 'addMany (5000 per call)', records: total, seconds: round(batchSeconds), recordsPerSec: Math.round(total / batchSeconds) });

  // First recall loads the warm index; timed separately.
  started = performance.now();
  await memory.recall('warm up', { topK: 10 });
  reporter.row({ bench: 'memory-recall', mode: 'first recall (loads index)', records: total + singles, ms: round(performance.now() - started), rssMB: rssMB() });

  // Two passes: the first reads each candidate record from SQLite, the repeat finds the
  // parsed records in the memory's cache (as an agent asking about the same things does).
  for (const pass of ['first pass', 'repeat']) {
    for (const scope of ['one namespace', 'all namespaces']) {
      for (const mode of ['hybrid', 'lexical', 'vector']) {
        const times = [];
        for (let index = 0; index < questions.length; index++) {
          const options = { topK: 10, mode, ...(scope === 'one namespace' ? { namespaces: [`agent/a${index % namespaceCount}`] } : {}) };
          const begin = performance.now();
          await memory.recall(questions[index], options);
          times.push(performance.now() - begin);
        }
        reporter.row({ bench: 'memory-recall', mode: `${mode}, ${scope}, ${pass}`, records: total + singles, queries: questions.length, ...summarize(times) });
      }
    }
  }
  reporter.row({ bench: 'machine', ...machine(), rssMB: rssMB() });
} finally {
  await loci.close();
  rmSync(work, { recursive: true, force: true });
}
reporter.done();

function round(value) {
  return Math.round(value * 100) / 100;
}
