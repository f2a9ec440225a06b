// One engine's first search in a new process: open what its build left on disk, answer one
// query, print the time from process start (Node's own start-up included) to the answer.
// Usage (by bench/peers.mjs): node bench/lib/first-search-child.mjs ENGINE DIR QUERY.json
import { readFileSync } from 'node:fs';
import { reopen } from './reopen.mjs';

const [name, dir, queryFile] = process.argv.slice(2);
const { text, vector, dimensions } = JSON.parse(readFileSync(queryFile, 'utf8'));
const query = { text, vector: Float32Array.from(vector) };
const opened = performance.now();
const engine = await reopen[name](dir, dimensions);
const hits = await engine.search(query);
const answered = performance.now();
process.stdout.write(`${JSON.stringify({ hits, sinceStartMs: Math.round(answered), openAndSearchMs: Math.round(answered - opened) })}\n`);
await engine.close();
