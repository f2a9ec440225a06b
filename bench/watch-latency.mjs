// Save-to-searchable latency of `loci watch`: a source tree is copied to a temp folder and
// watched in-process; each round appends a unique word to one file and waits until a search
// (from a separate engine reading the store, as another process would) finds it.
// Usage: node bench/watch-latency.mjs --repo DIR [--rounds 30] [--json]
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLoci } from '../dist/index.js';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const source = argument('repo');
if (!source) throw new Error('Pass --repo DIR (copied, never changed).');
const rounds = Number(argument('rounds', '30'));
const work = mkdtempSync(join(tmpdir(), 'loci-bench-watch-'));
const repo = join(work, 'repo');
cpSync(source, repo, { recursive: true, filter: (path) => !/[/\\](\.git|node_modules|\.loci)$/.test(path) });
const files = [];
const walk = (folder) => {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (/\.(ts|js|py|md)$/.test(name)) files.push(path);
  }
};
walk(repo);
files.sort();

let resolveIndexed;
const watching = createLoci({ root: repo });
const reader = createLoci({ root: repo, inMemory: false });
const started = performance.now();
const watcher = await watching.watch({ onEvent: (event) => event.type === 'watch-indexed' && resolveIndexed?.(event) });
reporter.row({ bench: 'watch', step: 'initial index + watcher ready', files: files.length, seconds: Math.round(performance.now() - started) / 1000 });
const indexed = [];
const searchable = [];
try {
  for (let round = 0; round < rounds; round++) {
    const word = `watchprobe${round}x${Date.now().toString(36)}`;
    const file = files[(round * 37) % files.length];
    const wait = new Promise((resolve) => (resolveIndexed = resolve));
    const begin = performance.now();
    appendFileSync(file, `\n// ${word}\n`);
    await wait;
    indexed.push(performance.now() - begin);
    for (let attempt = 0; attempt < 200; attempt++) {
      const { results } = await reader.search(word, { mode: 'lexical', topK: 1 });
      if (results.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    searchable.push(performance.now() - begin);
  }
  reporter.row({ bench: 'watch', step: 'save → indexed (50 ms debounce included)', rounds, ...summarize(indexed) });
  reporter.row({ bench: 'watch', step: 'save → found by another engine', rounds, ...summarize(searchable) });
  reporter.row({ bench: 'machine', ...machine() });
} finally {
  await watcher.close();
  await watching.close();
  await reader.close();
  rmSync(work, { recursive: true, force: true });
}
reporter.done();
