import { resolve } from 'node:path';
import type { Command } from 'commander';
import { LociError } from '../../../errors/index.js';
import { publicHit } from '../../../memory/public-record.js';
import type { CliIo } from '../cli-context.js';
import { printable } from '../format.js';
import { common, withMemory, type CommonFlags } from './memory-cli-support.js';

const number = (value: string | undefined, flag: string, low: number, high: number): number | undefined => {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < low || parsed > high) throw new LociError('INVALID_ARGUMENT', `${flag} must be a number from ${low} to ${high}; got "${value}".`);
  return parsed;
};

/**
 * `loci knowledge load|search|list|drop`: per-agent knowledge stores built from markdown,
 * the Go agent's `{name}_vector_store.json` (load-or-create, rebuilt when the file changes,
 * searched at a similarity threshold with top-N).
 */
export function registerKnowledgeCommand(program: Command, io: CliIo): void {
  const knowledge = program.command('knowledge').description('Per-agent knowledge stores from markdown files: load (or create), search, list, drop.');

  common(knowledge.command('load'))
    .description('Load-or-create an agent’s knowledge store from a markdown file; rebuilt when the file changes.')
    .argument('<agent>', 'the agent, e.g. boss')
    .argument('<file>', 'the markdown file (each section becomes an entry)')
    .action(async (agent: string, file: string, flags: CommonFlags) => {
      const store = await withMemory(io, flags, async (memory) => memory.knowledge.load(agent, { path: resolve(io.cwd, file) }));
      const summary = { agent, namespace: store.namespace, source: store.source, sections: store.sections, rebuilt: store.rebuilt };
      io.stdout.write(flags.json ? `${JSON.stringify(summary)}\n` : `${store.rebuilt ? 'built' : 'up to date:'} ${agent} (${store.sections} sections from ${printable(store.source)})\n`);
    });

  common(knowledge.command('search'))
    .description('Search an agent’s knowledge: sections at least --threshold similar (cosine), top --top-k; --mode cosine orders by similarity alone, as the Go agent does.')
    .argument('<agent>', 'the agent')
    .argument('<query...>', 'what to look up')
    .option('--threshold <x>', 'minimum cosine similarity (default 0.5, config memory.knowledgeThreshold)')
    .option('--top-k <n>', 'results at most (default 2, config memory.knowledgeTopK)')
    .option('--mode <mode>', 'hybrid (default) or cosine')
    .action(async (agent: string, words: string[], flags: CommonFlags & { threshold?: string; topK?: string; mode?: string }) => {
      if (flags.mode !== undefined && flags.mode !== 'hybrid' && flags.mode !== 'cosine') throw new LociError('INVALID_ARGUMENT', `--mode must be hybrid or cosine; got "${flags.mode}".`);
      const threshold = number(flags.threshold, '--threshold', -1, 1);
      const topK = number(flags.topK, '--top-k', 1, 100);
      const report = await withMemory(io, flags, (memory) =>
        memory.knowledge.search(agent, words.join(' '), {
          ...(threshold !== undefined ? { threshold } : {}),
          ...(topK !== undefined ? { topK: Math.floor(topK) } : {}),
          ...(flags.mode ? { mode: flags.mode as 'hybrid' | 'cosine' } : {}),
        }),
      );
      for (const warning of report.warnings) io.stderr.write(`warning: ${printable(warning)}\n`);
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ agent: report.agent, namespace: report.namespace, results: report.results.map(publicHit), rebuilt: report.rebuilt, warnings: report.warnings })}\n`);
        return;
      }
      if (report.results.length === 0) io.stdout.write('No section is similar enough.\n');
      for (const hit of report.results) io.stdout.write(`${hit.score.toFixed(3)}  ${printable(hit.record.text)}\n\n`);
    });

  common(knowledge.command('list'))
    .description('The knowledge stores loaded, with their sources and sections.')
    .action(async (flags: CommonFlags) => {
      const stores = await withMemory(io, flags, (memory) => memory.knowledge.list());
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ stores })}\n`);
        return;
      }
      if (stores.length === 0) io.stdout.write('No knowledge stores.\n');
      for (const store of stores) io.stdout.write(`${store.agent}  ${store.sections} sections  ${store.sources.map((source) => printable(source.name)).join(', ')}\n`);
    });

  common(knowledge.command('drop'))
    .description('Delete an agent’s knowledge store (its sections and sources).')
    .argument('<agent>', 'the agent')
    .action(async (agent: string, flags: CommonFlags) => {
      const dropped = await withMemory(io, flags, (memory) => memory.knowledge.drop(agent));
      io.stdout.write(flags.json ? `${JSON.stringify({ agent, dropped })}\n` : `dropped ${dropped} sections of ${agent}\n`);
    });
}
