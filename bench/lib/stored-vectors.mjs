// Exact cosine top-k over the vectors a loci store holds (loci embeds its own chunk text), so a
// recall measured against it is the recall of loci's vector index, not a difference in what
// was embedded.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cosineOf, exactTopK } from './dataset.mjs';

const require = createRequire(import.meta.url);

/** Copies `vector` into `into` at `offset`, scaled to unit length (a zero vector stays zero). */
function putNormalized(vector, into, offset) {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let d = 0; d < vector.length; d++) into[offset + d] = vector[d] * scale;
}

/**
 * Per query, the paths of the k nearest chunks by exact cosine over the store's vectors, and
 * the exact cosine of any stored path to a query (to count a returned chunk that ties the
 * k-th best as right).
 */
export async function storedVectorTruth(storeFolder, model, queryTexts, k) {
  const Database = require('better-sqlite3');
  const db = new Database(join(storeFolder, 'index.db'), { readonly: true });
  const embedder = db.prepare("SELECT value FROM meta WHERE key = 'embedder'").pluck().get();
  const rows = db.prepare('SELECT c.path AS path, e.vector AS vector FROM chunks c JOIN embeddings e ON e.embedder = ? AND e.content_hash = c.content_hash').all(embedder);
  db.close();
  const dimensions = model.dimensions;
  const matrix = new Float32Array(rows.length * dimensions);
  rows.forEach((row, index) => putNormalized(new Float32Array(new Uint8Array(row.vector).buffer), matrix, index * dimensions));
  const { embeddings } = await model.doEmbed({ values: queryTexts, purpose: 'query' });
  const queryMatrix = new Float32Array(queryTexts.length * dimensions);
  embeddings.forEach((vector, index) => putNormalized(vector, queryMatrix, index * dimensions));
  const indexOf = new Map(rows.map((row, index) => [row.path, index]));
  const cosine = (queryIndex, path) => {
    const index = indexOf.get(path);
    return index === undefined ? Number.NEGATIVE_INFINITY : cosineOf(matrix, dimensions, index, queryMatrix, queryIndex);
  };
  return { tops: exactTopK(matrix, dimensions, queryMatrix, k).map((top) => top.map((index) => rows[index].path)), cosine };
}
