import { createReadStream, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { LociError } from '../errors/index.js';

export interface BeirDocument {
  id: string;
  title: string;
  text: string;
  metadata: Record<string, unknown>;
}

export interface BeirQuery {
  id: string;
  text: string;
  metadata: Record<string, unknown>;
}

/** query id → (corpus id → graded relevance). */
export type Qrels = Map<string, Map<string, number>>;

/** Finds `name.jsonl` or `name.jsonl.gz` in a folder. */
export function findJsonl(folder: string, name: string): string | undefined {
  for (const candidate of [`${name}.jsonl`, `${name}.jsonl.gz`]) {
    const path = join(folder, candidate);
    if (existsSync(path)) return path;
  }
  return undefined;
}

async function* readJsonLines(path: string): AsyncGenerator<{ line: number; value: Record<string, unknown> }> {
  const stream = createReadStream(path);
  const input = path.endsWith('.gz') ? stream.pipe(createGunzip()) : stream;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new LociError('DATASET_INVALID', `${path}:${line} is not valid JSON (${(error as Error).message}).`, { cause: error });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new LociError('DATASET_INVALID', `${path}:${line} must be a JSON object.`);
    }
    yield { line, value: value as Record<string, unknown> };
  }
}

function requireId(value: Record<string, unknown>, path: string, line: number): string {
  const id = value._id;
  if (typeof id !== 'string' && typeof id !== 'number') {
    throw new LociError('DATASET_INVALID', `${path}:${line} has no "_id".`);
  }
  return String(id);
}

function metadataOf(value: Record<string, unknown>): Record<string, unknown> {
  const metadata = value.metadata;
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {};
}

export async function loadCorpus(folder: string): Promise<BeirDocument[]> {
  const path = findJsonl(folder, 'corpus');
  if (!path) throw new LociError('DATASET_INVALID', `No corpus.jsonl or corpus.jsonl.gz in ${folder}.`);
  const documents: BeirDocument[] = [];
  for await (const { line, value } of readJsonLines(path)) {
    documents.push({
      id: requireId(value, path, line),
      title: typeof value.title === 'string' ? value.title : '',
      text: typeof value.text === 'string' ? value.text : '',
      metadata: metadataOf(value),
    });
  }
  return documents;
}

export async function loadQueries(folder: string): Promise<BeirQuery[]> {
  const path = findJsonl(folder, 'queries');
  if (!path) throw new LociError('DATASET_INVALID', `No queries.jsonl or queries.jsonl.gz in ${folder}.`);
  const queries: BeirQuery[] = [];
  for await (const { line, value } of readJsonLines(path)) {
    queries.push({ id: requireId(value, path, line), text: typeof value.text === 'string' ? value.text : '', metadata: metadataOf(value) });
  }
  return queries;
}

export async function loadQrels(folder: string, split: string): Promise<Qrels> {
  const path = join(folder, 'qrels', `${split}.tsv`);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new LociError('DATASET_INVALID', `No qrels/${split}.tsv in ${folder}.`, { hint: 'Pass --split with a file name from the qrels folder.' });
  }
  const qrels: Qrels = new Map();
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    const fields = text.split('\t');
    if (text.trim() === '') continue;
    if (line === 1 && fields[0] === 'query-id') continue;
    const [queryId, corpusId, scoreText] = fields;
    const score = Number(scoreText);
    if (!queryId || !corpusId || !Number.isFinite(score)) {
      throw new LociError('DATASET_INVALID', `${path}:${line} must be "query-id<TAB>corpus-id<TAB>score".`);
    }
    let judged = qrels.get(queryId);
    if (!judged) qrels.set(queryId, (judged = new Map()));
    judged.set(corpusId, score);
  }
  return qrels;
}
