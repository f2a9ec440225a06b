// Tokenizes the training pairs with loci's own tokenizer (so training and inference see
// the same tokens), builds the vocabulary, and removes any pair that overlaps the
// evaluation corpora in ../shared/eval (decontamination: the eval sets are only used to
// exclude data, never to train on).
//
// Usage: node scripts/embedder/prepare-training-data.mjs DATA_DIR EVAL_DIR
import { createReadStream, writeFileSync, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { join } from 'node:path';
import { tokenize } from '../../dist/lexical/tokenize.js';

const [dataDir, evalDir] = process.argv.slice(2);
const MIN_COUNT = 3;
const MAX_VOCABULARY = 120_000;
const MAX_TOKENS = 256;

async function* lines(path) {
  const stream = createReadStream(path);
  const input = path.endsWith('.gz') ? stream.pipe(createGunzip()) : stream;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line.trim()) yield JSON.parse(line);
}

// Fingerprints of every eval document: its first non-empty line, normalised. A Python
// function's first line is its signature, so a training copy of a CoSQA function is caught.
const normalise = (text) => text.toLowerCase().replace(/\s+/g, ' ').trim();
const firstLine = (text) => normalise(text.split('\n').find((line) => line.trim()) ?? '');
const contaminated = new Set();
for (const set of ['cosqa', 'scifact', 'locomo']) {
  for (const name of ['corpus.jsonl', 'corpus.jsonl.gz', 'queries.jsonl']) {
    const path = join(evalDir, set, name);
    if (!existsSync(path)) continue;
    for await (const record of lines(path)) {
      const text = record.text ?? '';
      if (text.length >= 20) {
        contaminated.add(firstLine(text));
        contaminated.add(normalise(text));
      }
    }
  }
}

const pairs = [];
const counts = new Map();
let dropped = 0;
for (const file of ['python.jsonl', 'node-sources.jsonl']) {
  for await (const pair of lines(join(dataDir, file))) {
    if (contaminated.has(firstLine(pair.document)) || contaminated.has(normalise(pair.document)) || contaminated.has(normalise(pair.query))) {
      dropped++;
      continue;
    }
    const query = tokenize(pair.query).slice(0, MAX_TOKENS);
    const document = tokenize(pair.document).slice(0, MAX_TOKENS);
    if (query.length === 0 || document.length === 0) continue;
    for (const token of query) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const token of document) counts.set(token, (counts.get(token) ?? 0) + 1);
    pairs.push({ query, document, source: pair.source });
  }
}
const vocabulary = [...counts.entries()]
  .filter(([, count]) => count >= MIN_COUNT)
  .sort((a, b) => b[1] - a[1])
  .slice(0, MAX_VOCABULARY);
const idOf = new Map(vocabulary.map(([token], index) => [token, index]));
writeFileSync(join(dataDir, 'vocabulary.tsv'), `${vocabulary.map(([token, count]) => `${token}\t${count}`).join('\n')}\n`);
const encoded = [];
for (const pair of pairs) {
  const query = pair.query.map((token) => idOf.get(token)).filter((id) => id !== undefined);
  const document = pair.document.map((token) => idOf.get(token)).filter((id) => id !== undefined);
  if (query.length > 0 && document.length > 0) encoded.push(JSON.stringify({ q: query, d: document, s: pair.source }));
}
writeFileSync(join(dataDir, 'pairs.jsonl'), `${encoded.join('\n')}\n`);
console.error({ pairs: encoded.length, vocabulary: vocabulary.length, droppedAsEvalOverlap: dropped });
