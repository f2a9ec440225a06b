import type { Command } from 'commander';
import { meantChoice } from '../../../errors/meant-key.js';
import { searchModes, type SearchMode } from '../../../config/schema.js';
import { LociError } from '../../../errors/index.js';
import { runEval, type EvalReport } from '../../../eval/run-eval.js';
import { metricNames } from '../../../eval/metrics.js';
import { loadCliConfig, resolveRoot, type CliIo } from '../cli-context.js';
import { createProgressBar } from '../progress-bar.js';
import { withInterruptReport } from '../interrupt.js';

interface EvalFlags {
  split?: string;
  mode?: string;
  target?: string;
  namespaceField?: string;
  corpusDir?: string;
  embedder?: string;
  config?: string;
  json?: boolean;
}

export function registerEvalCommand(program: Command, io: CliIo): void {
  program
    .command('eval')
    .description('Score retrieval on a BEIR-layout dataset (corpus.jsonl[.gz], queries.jsonl, qrels/<split>.tsv).')
    .argument('<beir-dir>', 'dataset folder')
    .option('--split <name>', 'qrels split', 'dev')
    .option('--mode <mode>', `one of ${searchModes.join(', ')}`)
    .option('--target <target>', 'knowledge (documents) or memory (memory records)', 'knowledge')
    .option('--namespace-field <field>', 'answer each query only from documents whose metadata.<field> equals its own')
    .option('--corpus-dir <dir>', 'index this folder as a repository; qrels name files relative to it')
    .option('--embedder <id>', 'embedder id, or "none"')
    .option('--config <file>', 'config file')
    .option('--json', 'print {"ndcg@10","mrr@10","recall@10","recall@100","queries"}')
    .action(async (datasetDir: string, flags: EvalFlags) => {
      if (flags.mode && !(searchModes as readonly string[]).includes(flags.mode)) {
        throw new LociError('INVALID_ARGUMENT', `--mode must be one of ${searchModes.join(', ')}; got "${flags.mode}".${meantChoice(flags.mode, searchModes)}`, {
          hint: `Pass --mode ${searchModes.join(', --mode ')}.`,
        });
      }
      if (flags.target !== 'knowledge' && flags.target !== 'memory') {
        throw new LociError('INVALID_ARGUMENT', `--target must be knowledge or memory; got "${flags.target}".`);
      }
      const dataset = resolveRoot(io, datasetDir, { mustExist: true });
      const corpusDir = flags.corpusDir ? resolveRoot(io, flags.corpusDir, { mustExist: true }) : undefined;
      const config = loadCliConfig(io, dataset, [{ path: 'embedder', flag: '--embedder', value: flags.embedder }], flags.config);
      const bar = createProgressBar(io.stderr, 'eval');
      try {
        await withInterruptReport(
          io,
          (signal) =>
            runEval({
              datasetDir: dataset,
              split: flags.split ?? 'dev',
              target: flags.target as 'knowledge' | 'memory',
              config,
              env: io.env,
              signal,
              ...(flags.mode ? { mode: flags.mode as SearchMode } : {}),
              ...(flags.namespaceField ? { namespaceField: flags.namespaceField } : {}),
              ...(corpusDir ? { corpusDir } : {}),
              onIndexProgress: (event) => bar.onIndexEvent(event),
              onQuery: (done, total) => bar.update(done, total, 'queries'),
            }),
          (report) => {
            bar.finish();
            io.stdout.write(flags.json ? `${JSON.stringify(toJson(report))}\n` : formatReport(report));
          },
        );
      } finally {
        bar.finish();
      }
    });
}

function toJson(report: EvalReport) {
  const round = (value: number) => Math.round(value * 10_000) / 10_000;
  const json: Record<string, unknown> = {};
  for (const name of metricNames) json[name] = round(report.metrics[name]);
  json.queries = report.queries;
  if (report.categories) {
    json.categories = Object.fromEntries(
      Object.entries(report.categories).map(([category, metrics]) => [category, { ...Object.fromEntries(metricNames.map((name) => [name, round(metrics[name])])), queries: metrics.queries }]),
    );
  }
  return json;
}

function formatReport(report: EvalReport): string {
  const header = `${'set'.padEnd(14)}${metricNames.map((name) => name.padStart(11)).join('')}${'queries'.padStart(9)}`;
  const row = (label: string, metrics: Record<string, number>, queries: number) =>
    `${label.padEnd(14)}${metricNames.map((name) => (metrics[name] as number).toFixed(4).padStart(11)).join('')}${String(queries).padStart(9)}`;
  const lines = [
    `Dataset ${report.dataset} (split ${report.split}, mode ${report.mode}, target ${report.target}, embedder ${report.embedder})`,
    header,
    row('all', report.metrics as unknown as Record<string, number>, report.queries),
  ];
  for (const [category, metrics] of Object.entries(report.categories ?? {})) {
    lines.push(row(`category ${category}`, metrics as unknown as Record<string, number>, metrics.queries));
  }
  lines.push(`indexed in ${report.indexSeconds} s, queried in ${report.querySeconds} s`);
  if (report.missingQueries > 0) lines.push(`warning: ${report.missingQueries} judged queries are missing from queries.jsonl`);
  return `${lines.join('\n')}\n`;
}
