#!/usr/bin/env node
// Splits a BEIR dataset's judgments into two fixed halves, so ranking changes can be tuned
// on one (`tune`) and checked on the other (`test`): a query goes to a half by a hash of its
// id (the same rule as scripts/commit-eval-set.mjs). The corpus and queries are linked, not
// copied; nothing is written into the source folder.
//
//   node scripts/eval-halves.mjs --from ../shared/eval/cosqa --out /tmp/eval/cosqa [--split dev]
//   node dist/interfaces/cli/main.js eval /tmp/eval/cosqa --split tune
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const from = argument('from');
const out = argument('out');
const split = argument('split', 'dev');
if (!from || !out) {
  process.stderr.write('usage: node scripts/eval-halves.mjs --from DATASET --out DIR [--split dev]\n');
  process.exit(2);
}
const source = resolve(from);
const target = resolve(out);
const qrelsFile = join(source, 'qrels', `${split}.tsv`);
if (!existsSync(qrelsFile)) {
  process.stderr.write(`${qrelsFile} does not exist\n`);
  process.exit(2);
}

rmSync(target, { recursive: true, force: true });
mkdirSync(join(target, 'qrels'), { recursive: true });
for (const name of readdirSync(source)) {
  if (name === 'qrels') continue;
  symlinkSync(join(source, name), join(target, name));
}
for (const name of readdirSync(join(source, 'qrels'))) symlinkSync(join(source, 'qrels', name), join(target, 'qrels', name));

const half = (id) => (createHash('sha256').update(id).digest()[0] % 2 === 0 ? 'tune' : 'test');
const [header, ...rows] = readFileSync(qrelsFile, 'utf8').split('\n').filter(Boolean);
const halves = { tune: [], test: [] };
for (const row of rows) halves[half(row.split('\t')[0])].push(row);
for (const [name, lines] of Object.entries(halves)) writeFileSync(join(target, 'qrels', `${name}.tsv`), `${[header, ...lines].join('\n')}\n`);
const queries = (lines) => new Set(lines.map((line) => line.split('\t')[0])).size;
process.stderr.write(`${target}: tune ${queries(halves.tune)} queries, test ${queries(halves.test)} queries (from qrels/${split}.tsv)\n`);
