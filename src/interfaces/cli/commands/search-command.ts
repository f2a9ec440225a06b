import type { Command } from 'commander';
import { meantChoice } from '../../../errors/meant-key.js';
import { searchModes, type SearchMode } from '../../../config/schema.js';
import { createLoci } from '../../../engine/create-loci.js';
import { LociError } from '../../../errors/index.js';
import type { SearchResponse } from '../../../retrieve/search-types.js';
import { loadCliConfig, numberFlag, resolveIndexedRoot, type CliIo } from '../cli-context.js';
import { printable } from '../format.js';

interface SearchFlags {
  root?: string;
  store?: string;
  topK?: string;
  threshold?: string;
  minSimilarity?: string;
  mode?: string;
  path?: string[];
  lang?: string[];
  role?: string[];
  excludeRole?: string[];
  symbol?: string;
  files?: boolean;
  explain?: boolean;
  json?: boolean;
  config?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerSearchCommand(program: Command, io: CliIo): void {
  program
    .command('search')
    .description('Search an index: hybrid (default), vector or lexical.')
    .argument('[query...]', 'what to look for (omit with --symbol)')
    .option('--root <dir>', 'the indexed folder (default: the current one)')
    .option('--store <path>', 'store folder, .db file or postgres://user@host/db?namespace=name (default <root>/.loci)')
    .option('--top-k <n>', 'number of results, 1 to 1000 (default 10, config search.topK)')
    .option('--threshold <x>', 'drop results whose displayed score (relative, per mode; see docs/quality.md) is below x')
    .option('--min-similarity <x>', 'drop results whose cosine similarity to the query (absolute, -1 to 1) is below x; needs vectors')
    .option('--mode <mode>', `one of ${searchModes.join(', ')}`)
    .option('--path <glob>', 'only paths matching this glob or under this folder; "!glob" excludes (repeatable: includes OR-ed, excludes AND-ed)', collect)
    .option('--lang <language>', 'only this language or alias: typescript (= ts, with tsx), py, go, rs, cs, … (repeatable)', collect)
    .option('--role <role>', 'only files with this role: implementation, test, fixture, example, docs, generated, config, lock (repeatable)', collect)
    .option('--exclude-role <role>', 'leave out files with this role, e.g. test (repeatable)', collect)
    .option('--symbol <name>', 'exact lookup: where this symbol is defined (implementation first), nothing else')
    .option('--files', 'rank files by their best chunk')
    .option('--explain', "show each signal's contribution and the learned ranker's features for each result")
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .option('--json', 'print {"results":[…],"retrieval":{…},"warnings":[…],"degraded":false,"degradedParts":[]}')
    .action(async (words: string[], flags: SearchFlags) => {
      const query = words.join(' ');
      if (flags.symbol !== undefined && query.trim() !== '') throw new LociError('INVALID_ARGUMENT', 'Give either a query or --symbol NAME, not both.', { hint: 'loci search --symbol nextTick' });
      if (flags.symbol === undefined && query.trim() === '')
        throw new LociError('QUERY_EMPTY', 'The search query is empty.', { hint: 'loci search "how are requests retried", or loci search --symbol NAME.' });
      if (flags.mode && !(searchModes as readonly string[]).includes(flags.mode)) {
        throw new LociError('INVALID_ARGUMENT', `--mode must be one of ${searchModes.join(', ')}; got "${flags.mode}".${meantChoice(flags.mode, searchModes)}`, {
          hint: `Pass --mode ${searchModes.join(', --mode ')}.`,
        });
      }
      const root = resolveIndexedRoot(io, flags.root, { store: flags.store });
      const config = loadCliConfig(
        io,
        root,
        [
          { path: 'store', flag: '--store', value: flags.store },
          { path: 'search.topK', flag: '--top-k', value: numberFlag(flags.topK) },
          { path: 'search.threshold', flag: '--threshold', value: numberFlag(flags.threshold) },
          { path: 'search.mode', flag: '--mode', value: flags.mode },
        ],
        flags.config,
      );
      // One query per process: the store's own indexes answer faster than loading them.
      const loci = createLoci({ root, config, env: io.env, inMemory: false });
      try {
        const filters = {
          ...(flags.path ? { paths: flags.path } : {}),
          ...(flags.lang ? { languages: flags.lang.flatMap((value) => value.split(',')) } : {}),
          ...(flags.role ? { roles: flags.role } : {}),
          ...(flags.excludeRole ? { excludeRoles: flags.excludeRole } : {}),
        };
        if (flags.symbol !== undefined) {
          const unused = [
            flags.mode !== undefined && '--mode',
            flags.threshold !== undefined && '--threshold',
            flags.explain && '--explain',
            flags.minSimilarity !== undefined && '--min-similarity',
            flags.files && '--files',
          ].filter(Boolean);
          if (unused.length > 0) {
            throw new LociError('INVALID_ARGUMENT', `--symbol is an exact lookup of definitions: ${unused.join(', ')} ${unused.length === 1 ? 'does' : 'do'} not apply to it.`, {
              hint: `Drop ${unused.join(', ')}, or search instead: loci search "${flags.symbol}".`,
            });
          }
          const response = await loci.findSymbol(flags.symbol, { ...filters, topK: config.search.topK });
          writeResponse(io, response, flags);
          return;
        }
        const response = await loci.search(query, {
          mode: config.search.mode as SearchMode,
          ...filters,
          ...(flags.files ? { files: true } : {}),
          ...(flags.explain ? { explain: true } : {}),
          ...(flags.minSimilarity !== undefined ? { minSimilarity: similarityFlag(flags.minSimilarity) } : {}),
        });
        writeResponse(io, response, flags);
      } finally {
        await loci.close();
      }
    });
}

function similarityFlag(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < -1 || parsed > 1) throw new LociError('INVALID_ARGUMENT', `--min-similarity must be a cosine similarity from -1 to 1; got "${value}".`);
  return parsed;
}

function toJson(response: SearchResponse) {
  return { results: response.results, retrieval: response.retrieval, warnings: response.warnings, degraded: response.degraded, degradedParts: response.degradedParts };
}

function formatResponse(response: SearchResponse, files: boolean): string {
  const lines: string[] = [];
  if (response.results.length === 0) lines.push('No results.');
  response.results.forEach((result, index) => {
    const where =
      result.line !== undefined ? `${printable(result.path)}:${result.line} (lines ${result.startLine}-${result.endLine})` : `${printable(result.path)}:${result.startLine}-${result.endLine}`;
    const label = printable(result.symbol ?? (result.headingPath.length > 0 ? result.headingPath.join(' > ') : ''));
    const role = result.role && result.role !== 'implementation' ? `  [${result.role}]` : '';
    lines.push(
      `${index + 1}. ${where}${label ? `  ${label}` : ''}${role}  (score ${result.score.toFixed(3)})${result.stale ? `  [stale: ${result.deleted ? 'deleted' : 'changed'} since indexed]` : ''}`,
    );
    if (result.explanation) {
      const parts = Object.entries(result.explanation).map(([signal, part]) => `${signal} ${part.raw.toFixed(3)} → ${part.normalized.toFixed(3)} × ${part.weight} = ${part.contribution.toFixed(3)}`);
      lines.push(`   [${parts.join('; ')}]`);
    }
    if (result.adjustments) {
      const { role: scaled, fromTests, definition, capped } = result.adjustments;
      const parts = [
        ...(scaled ? [`role ${scaled.role} × ${scaled.factor}`] : []),
        ...(fromTests ? [`its tests lend ${fromTests.toFixed(3)}`] : []),
        ...(definition ? ['defines the named symbol: placed first'] : []),
        ...(capped !== undefined ? [`below the lead, in retrieval order: score ${capped.toFixed(3)} capped to the one above`] : []),
      ];
      if (parts.length > 0) lines.push(`   [${parts.join('; ')}]`);
    }
    if (result.ranking) {
      // The learned ranker's largest contributions (score = logistic of bias + their sum).
      const terms = Object.entries(result.ranking.features)
        .filter(([, part]) => part.contribution !== 0)
        .sort((a, b) => Math.abs(b[1].contribution) - Math.abs(a[1].contribution))
        .slice(0, 6)
        .map(([feature, part]) => `${feature} ${part.value.toFixed(3)} × ${part.weight.toFixed(3)} = ${part.contribution.toFixed(3)}`);
      lines.push(`   [${result.ranking.ranker} (${result.ranking.group}): bias ${result.ranking.bias.toFixed(3)}; ${terms.join('; ')}]`);
    }
    if (!files) {
      // A definition's preview starts at its line.
      const from = result.line !== undefined ? result.line : result.startLine;
      const preview = result.text.split('\n').slice(from - result.startLine, from - result.startLine + 6);
      const width = String(from + preview.length).length;
      preview.forEach((text, offset) => lines.push(`   ${String(from + offset).padStart(width)} │ ${printable(text.slice(0, 160))}`));
      lines.push('');
    }
  });
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The response as JSON, or as text on stdout with its warnings on stderr (as every command gives them). */
function writeResponse(io: CliIo, response: SearchResponse, flags: { json?: boolean; files?: boolean }): void {
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(toJson(response))}\n`);
    return;
  }
  io.stdout.write(formatResponse(response, flags.files === true));
  for (const warning of response.warnings) io.stderr.write(`warning: ${printable(warning)}\n`);
}
