// Latency of building a packed prompt (retrieve → pack → template, o200k token counts) on a
// real repository, in-process and warm, plus the cold CLI call.
// Usage: node bench/context-latency.mjs --repo DIR [--max-tokens N] [--json]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createLoci } from '../dist/index.js';
import { buildContext } from '../dist/context/build-context.js';
import { argument, createReporter, machine, summarize } from './lib/report.mjs';

const reporter = createReporter();
const repo = argument('repo');
if (!repo) throw new Error('Pass --repo DIR (e.g. a checkout of vuejs/core).');
const maxTokens = Number(argument('max-tokens', '8000'));
const questions = readFileSync(new URL('../../shared/eval/cosqa/queries.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(0, 100)
  .map((line) => JSON.parse(line).text);
const loci = createLoci({ root: repo });
try {
  await loci.index();
  await buildContext(loci, 'warm up', { maxTokens, smallProject: false });
  const times = [];
  let tokens = 0;
  for (const question of questions) {
    const started = performance.now();
    const built = await buildContext(loci, question, { maxTokens, smallProject: false });
    times.push(performance.now() - started);
    tokens += built.tokens;
  }
  reporter.row({ bench: 'context', mode: 'in-process, warm', repo, maxTokens, questions: questions.length, meanTokens: Math.round(tokens / questions.length), ...summarize(times) });
  const cli = [];
  for (const question of questions.slice(0, 5)) {
    const started = performance.now();
    execFileSync(process.execPath, [
      new URL('../dist/interfaces/cli/main.js', import.meta.url).pathname,
      'context',
      question,
      '--root',
      repo,
      '--max-tokens',
      String(maxTokens),
      '--json',
      '--no-small-project',
    ]);
    cli.push(performance.now() - started);
  }
  reporter.row({ bench: 'context', mode: 'CLI process (cold)', repo, maxTokens, questions: cli.length, ...summarize(cli) });
  reporter.row({ bench: 'machine', ...machine() });
} finally {
  await loci.close();
}
reporter.done();
