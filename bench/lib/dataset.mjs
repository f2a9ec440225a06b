// The peer benchmark's data: real chunks of real text, cut by loci's own chunker, embedded
// once by loci's default offline model, and shared by every engine.
// Sources, in order: the dev sets in ../shared/eval (SciFact abstracts, CoSQA code, LoCoMo
// turns), this machine's Python standard library, and any --repos folders. Duplicates are
// dropped. Sizes beyond the real chunks available are filled with variants of real chunks
// (each keeps a seeded random 70 % of its lines, or of its words when it has one line), so
// postings and vectors keep the structure of real text; the report says how many.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { chunkFile } from '../../dist/chunk/index.js';
import { readSourceFile, walkFolder } from '../../dist/sources/index.js';
import { registerBuiltInEmbedders } from '../../dist/embed/providers.js';
import { resolveEmbedder } from '../../dist/embed/registry.js';
import { configSchema } from '../../dist/index.js';
import { EVAL_DIR } from './eval-dir.mjs';

const EVAL = EVAL_DIR;
const CHUNKING = { tokenBudget: 512, windowLines: 60, windowOverlap: 10 };

export function seededRandom(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

function readJsonl(file) {
  if (!existsSync(file) && existsSync(`${file}.gz`)) file = `${file}.gz`;
  if (!existsSync(file)) return [];
  const bytes = readFileSync(file);
  const text = file.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

async function* evalDocuments() {
  for (const set of ['scifact', 'cosqa', 'locomo']) {
    for (const doc of readJsonl(join(EVAL, set, 'corpus.jsonl'))) {
      const text = [doc.title, doc.text].filter(Boolean).join('\n');
      if (text.trim()) yield { path: `${set}/${doc._id}`, text, language: set === 'cosqa' ? 'python' : 'markdown' };
    }
  }
}

async function* folderDocuments(root, name) {
  const walk = await walkFolder({ root, maxFileBytes: 512 * 1024, exclude: [], respectGitignore: true, excludeAbsolutePaths: [] });
  for (const file of walk.files) {
    const read = await readSourceFile(file.absolutePath, 512 * 1024);
    if (read.ok) yield { path: `${name}/${file.path}`, text: read.text, language: file.language };
  }
}

function pythonStdlib() {
  try {
    return execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** Up to `limit` distinct real chunks: { id, text }. */
export async function realChunks(limit, repos = []) {
  const chunks = [];
  const seen = new Set();
  const sources = [evalDocuments()];
  const stdlib = pythonStdlib();
  if (stdlib) sources.push(folderDocuments(stdlib, 'python-stdlib'));
  for (const repo of repos) if (existsSync(repo)) sources.push(folderDocuments(repo, repo.split('/').filter(Boolean).at(-1)));
  for (const source of sources) {
    for await (const doc of source) {
      for (const [part, draft] of (await chunkFile({ path: doc.path, text: doc.text, language: doc.language, ...CHUNKING })).entries()) {
        const text = draft.text.trim();
        if (text.length < 20 || seen.has(text)) continue;
        seen.add(text);
        chunks.push({ id: `${doc.path}#${part}`, text });
        if (chunks.length >= limit) return chunks;
      }
    }
  }
  return chunks;
}

function variant(chunk, copy, random) {
  const lines = chunk.text.split('\n');
  const units = lines.length > 1 ? lines : chunk.text.split(' ');
  const kept = units.filter(() => random() < 0.7);
  const text = (kept.length > 0 ? kept : units.slice(0, 1)).join(lines.length > 1 ? '\n' : ' ');
  return { id: `${chunk.id}~${copy}`, text };
}

/** The benchmark's chunks at size n (real first, then variants), shuffled by seed. */
export function sizeTo(real, n, seed) {
  const random = seededRandom(seed);
  const order = real.map((_, index) => index);
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other], order[index]];
  }
  const chunks = order.slice(0, n).map((index) => real[index]);
  // Variants are distinct texts: an exact duplicate would tie with its original in every
  // engine's exact search, and ties make recall@10 meaningless (any tied copy is as right).
  const seen = new Set(chunks.map((chunk) => chunk.text));
  for (let copy = 1; chunks.length < n && copy <= 64; copy++) {
    for (const index of order) {
      if (chunks.length >= n) break;
      const next = variant(real[index], copy, random);
      if (seen.has(next.text)) continue;
      seen.add(next.text);
      chunks.push(next);
    }
  }
  if (chunks.length < n) throw new Error(`Only ${chunks.length} distinct chunks could be made for n=${n}; pass more --repos.`);
  return { chunks, variants: Math.max(0, n - real.length) };
}

export async function staticModel() {
  registerBuiltInEmbedders();
  return resolveEmbedder('static', { config: configSchema.parse({}), env: {} });
}

/** Unit vectors, packed: n × dimensions. */
export async function embedAll(model, texts, purpose = 'document') {
  const out = new Float32Array(texts.length * model.dimensions);
  for (let start = 0; start < texts.length; start += model.maxEmbeddingsPerCall) {
    const { embeddings } = await model.doEmbed({ values: texts.slice(start, start + model.maxEmbeddingsPerCall), purpose });
    embeddings.forEach((vector, offset) => {
      let norm = 0;
      for (const value of vector) norm += value * value;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      const base = (start + offset) * model.dimensions;
      for (let index = 0; index < model.dimensions; index++) out[base + index] = vector[index] * scale;
    });
  }
  return out;
}

/** Natural-language questions from the dev sets (CoSQA's code questions, SciFact's claims), alternating. */
export function benchQueries(count, seed) {
  const cosqa = readJsonl(join(EVAL, 'cosqa', 'queries.jsonl')).map((query) => query.text);
  const scifact = readJsonl(join(EVAL, 'scifact', 'queries.jsonl')).map((query) => query.text);
  const random = seededRandom(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  return Array.from({ length: count }, (_, index) => (index % 2 === 0 ? pick(cosqa) : pick(scifact))).filter(Boolean);
}

/** The exact cosine of row `row` to query `q` (the vectors are unit length, packed n × dimensions). */
export function cosineOf(vectors, dimensions, row, queryVectors, q) {
  let dot = 0;
  const base = row * dimensions;
  const qBase = q * dimensions;
  for (let index = 0; index < dimensions; index++) dot += vectors[base + index] * queryVectors[qBase + index];
  return dot;
}

/** Every row's exact cosine to query `q`. */
export function cosinesTo(vectors, dimensions, queryVectors, q) {
  const scores = new Float32Array(vectors.length / dimensions);
  for (let row = 0; row < scores.length; row++) scores[row] = cosineOf(vectors, dimensions, row, queryVectors, q);
  return scores;
}

/** The k best rows by score, ties to the lower row. */
export function topOf(scores, k) {
  const top = [];
  for (let row = 0; row < scores.length; row++) {
    if (top.length < k || scores[row] > scores[top[top.length - 1]]) {
      top.push(row);
      top.sort((a, b) => scores[b] - scores[a] || a - b);
      if (top.length > k) top.pop();
    }
  }
  return top;
}

/** Exact cosine top-k ids per query (ground truth for ANN recall), by brute force. */
export function exactTopK(vectors, dimensions, queryVectors, k) {
  const results = [];
  for (let q = 0; q < queryVectors.length / dimensions; q++) results.push(topOf(cosinesTo(vectors, dimensions, queryVectors, q), k));
  return results;
}
