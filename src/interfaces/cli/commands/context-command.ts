import type { Command } from 'commander';
import { buildContext, type BuiltContext, type ContextOptions } from '../../../context/build-context.js';
import { readCitations } from '../../../context/citations.js';
import { apiReranker } from '../../../context/rerank/api-reranker.js';
import { crossEncoderReranker } from '../../../context/rerank/cross-encoder.js';
import { llmYesNoReranker } from '../../../context/rerank/llm-yes-no.js';
import { mmrReranker } from '../../../context/rerank/mmr.js';
import type { Reranker } from '../../../context/rerank/spec.js';
import { loadTemplate } from '../../../context/templates.js';
import { embedMany } from '../../../embed/embed-many.js';
import { createLoci, type Loci } from '../../../engine/create-loci.js';
import { LociError } from '../../../errors/index.js';
import { chatModelFromEnv } from '../../../llm/openai-compatible.js';
import type { ChatModel } from '../../../llm/spec.js';
import type { InteractionLog } from '../../../memory/memory.js';
import { loadCliConfig, resolveIndexedRoot, type CliIo } from '../cli-context.js';
import { printable } from '../format.js';

interface ContextFlags {
  root?: string;
  store?: string;
  config?: string;
  json?: boolean;
  maxTokens?: string;
  softTokens?: string;
  tokenizer?: string;
  topN?: string;
  topK?: string;
  threshold?: string;
  minSimilarity?: string;
  path?: string[];
  include?: string[];
  all?: string | boolean;
  smallProject?: boolean;
  rerank?: string;
  pickFiles?: boolean;
  repoMap?: string;
  template?: string;
  system?: string;
  conversation?: string;
  historyTokens?: string;
  conversationNamespace?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function contextOptions(command: Command): Command {
  return command
    .option('--root <dir>', 'the indexed folder (default: the current one)')
    .option('--store <path>', 'store folder, .db file or postgres://user@host/db?namespace=name (default <root>/.loci)')
    .option('--config <file>', 'config file (default <root>/loci.config.json)')
    .option('--max-tokens <n>', 'hard limit for the whole prompt', '8000')
    .option('--soft-tokens <n>', 'stop adding context at this size (default 85% of --max-tokens)')
    .option('--tokenizer <id>', 'o200k (default), cl100k, bytes, or a model name such as gpt-4o')
    .option('--top-n <n>', 'chunks retrieved before reranking', '50')
    .option('--top-k <n>', 'chunks kept after reranking', '20')
    .option('--threshold <x>', 'drop retrieved chunks whose displayed score (relative, per mode) is below x')
    .option('--min-similarity <x>', 'drop retrieved chunks whose cosine similarity to the question (absolute, -1 to 1) is below x')
    .option('--path <glob>', 'only retrieve from paths matching this glob or folder (repeatable)', collect)
    .option('--include <path>', 'always send this file whole (repeatable; @path in the question works too)', collect)
    .option('--all [mask]', 'send every indexed file matching the glob mask (default all), or fail with the size')
    .option('--no-small-project', 'never send a small project whole (default: under 200 files and 170 KB, send everything)')
    .option(
      '--rerank <kind>',
      'none (default), mmr, llm (yes/no by the chat model), cross-encoder (transformers.js, LOCI_RERANK_MODEL), cohere or voyage (LOCI_RERANK_BASE_URL, LOCI_RERANK_MODEL, LOCI_RERANK_API_KEY)',
      'none',
    )
    .option('--pick-files', 'let the chat model pick files from a repo map; picks boost the ranking')
    .option('--repo-map <tokens>', 'prepend a repo map of at most this many tokens')
    .option('--template <file>', 'custom prompt template with {{system}}, {{history}}, {{context}}, {{question}}')
    .option('--system <text>', 'system prompt')
    .option('--conversation <id>', 'add the relevant history of this conversation (from memory)')
    .option('--history-tokens <n>', "tokens of the conversation's history at most (default a quarter of --max-tokens)")
    .option('--conversation-namespace <ns>', "where the conversation's turns are stored (default conversations/<id>)");
}

export function registerContextCommands(program: Command, io: CliIo): void {
  contextOptions(program.command('context'))
    .description('Print the packed prompt for a question, without calling a model.')
    .argument('<question...>', 'the question')
    .option('--json', 'print {"tokens","prompt","messages","sources"}')
    .action(async (words: string[], flags: ContextFlags) => {
      await withEngine(io, flags, async (loci) => {
        const built = await buildContext(loci, words.join(' '), await toOptions(loci, io, flags));
        io.stdout.write(flags.json ? `${JSON.stringify(contextJson(built))}\n` : `${built.prompt}\n`);
        writeWarnings(io, built.warnings);
        if (!flags.json)
          io.stderr.write(`${built.tokens} ${built.unit} (${built.tokenizer}), ${built.sources.length} sources, mode ${built.mode}${built.skipped ? `, ${built.skipped} left out` : ''}\n`);
      });
    });

  contextOptions(program.command('ask'))
    .description('Answer a question with a chat model over the packed context (LOCI_LLM_BASE_URL, LOCI_LLM_MODEL, LOCI_LLM_API_KEY).')
    .argument('<question...>', 'the question')
    .option('--json', 'print {"answer","sources","cited","tokens","conversationId","warnings","degraded","degradedParts"} instead of streaming')
    .action(async (words: string[], flags: ContextFlags) => {
      const question = words.join(' ');
      await withEngine(io, flags, async (loci) => {
        const chat = chatModelFromEnv(io.env, loci.config.llm);
        const memory = await loci.memory();
        const conversationId = flags.conversation ?? 'default';
        const built = await buildContext(loci, question, await toOptions(loci, io, flags, chat));
        writeWarnings(io, built.warnings);
        let interaction: InteractionLog | undefined;
        const answer = await memory.withInteraction({ namespace: 'loci/ask', prompt: question, metadata: { conversationId, sources: built.sources.length } }, async (log) => {
          interaction = log;
          let text = '';
          for await (const delta of chat.stream({ messages: built.messages })) {
            text += delta;
            if (!flags.json) io.stdout.write(delta);
          }
          // An empty reply is a failure (logged as one), never a successful turn.
          if (text.trim() === '')
            throw new LociError('LLM_FAILED', `The chat model ${chat.modelId} returned an empty answer.`, {
              hint: 'Check the model name and that the server answers /chat/completions with text (try again, or another model).',
            });
          log.response = text;
          return text;
        });
        // The streamed answer ends its line before any warning (stderr) or the sources are written.
        if (!flags.json && !answer.endsWith('\n')) io.stdout.write('\n');
        const logWarnings = [...(interaction?.warnings ?? [])];
        const turn = await memory.addTurn({ conversationId, userQuery: question, assistantResponse: answer, metadata: { sources: built.sources } }).catch((error: unknown) => {
          // The answer is the caller's result: a failure to record the turn is told, never put in its place.
          logWarnings.push(`The turn was not recorded in conversation ${conversationId}: ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        });
        if (turn?.warnings) logWarnings.push(...turn.warnings.filter((warning) => !logWarnings.includes(warning)));
        const sources = numbered(built);
        const citations = readCitations(answer, built.items.length);
        const cited = citations.cited.filter((n) => sources.some((source) => source.n === n));
        if (citations.unknown.length > 0) logWarnings.push(unknownCitations(citations.unknown, built.items.length));
        writeWarnings(io, logWarnings);
        if (flags.json) {
          io.stdout.write(
            `${JSON.stringify({ answer, sources, cited, tokens: built.tokens, conversationId, warnings: [...built.warnings, ...logWarnings], degraded: built.degraded, degradedParts: built.degradedParts })}\n`,
          );
        } else {
          io.stdout.write(`\n${sourcesList(sources, cited)}\n`);
        }
      });
    });
}

async function withEngine(io: CliIo, flags: ContextFlags, action: (loci: Loci) => Promise<void>): Promise<void> {
  const root = resolveIndexedRoot(io, flags.root, { store: flags.store });
  const config = loadCliConfig(io, root, [{ path: 'store', flag: '--store', value: flags.store }], flags.config);
  const loci = createLoci({ root, config, env: io.env, inMemory: false });
  try {
    await action(loci);
  } finally {
    await loci.close();
  }
}

async function toOptions(loci: Loci, io: CliIo, flags: ContextFlags, chat?: ChatModel): Promise<ContextOptions> {
  const options: ContextOptions = {
    maxTokens: int(flags.maxTokens ?? '8000', '--max-tokens'),
    topN: int(flags.topN ?? '50', '--top-n'),
    topK: int(flags.topK ?? '20', '--top-k'),
    smallProject: flags.smallProject !== false,
  };
  if (flags.softTokens) options.softTokens = int(flags.softTokens, '--soft-tokens');
  if (flags.tokenizer) options.tokenizer = flags.tokenizer;
  if (flags.threshold) options.threshold = Number(flags.threshold);
  if (flags.minSimilarity !== undefined) {
    const similarity = Number(flags.minSimilarity);
    if (!Number.isFinite(similarity) || similarity < -1 || similarity > 1)
      throw new LociError('INVALID_ARGUMENT', `--min-similarity must be a cosine similarity from -1 to 1; got "${flags.minSimilarity}".`);
    options.minSimilarity = similarity;
  }
  if (flags.path) options.paths = flags.path;
  if (flags.include) options.include = flags.include;
  if (flags.all !== undefined) options.all = flags.all === true ? '' : String(flags.all);
  if (flags.repoMap) options.repoMapTokens = int(flags.repoMap, '--repo-map');
  if (flags.template) options.template = loadTemplate(flags.template);
  if (flags.system) options.system = flags.system;
  if (flags.pickFiles) options.pickFilesWith = chat ?? chatModelFromEnv(io.env, loci.config.llm);
  const reranker = await rerankerFor(flags.rerank ?? 'none', loci, io, chat);
  if (reranker) options.reranker = reranker;
  // The same budgeted history as /v1/context and the MCP context tool; an unknown conversation has none.
  if (flags.conversation) options.conversationId = flags.conversation;
  if (flags.historyTokens !== undefined) options.historyTokens = int(flags.historyTokens, '--history-tokens');
  if (flags.conversationNamespace !== undefined) options.conversationNamespace = flags.conversationNamespace;
  return options;
}

async function rerankerFor(kind: string, loci: Loci, io: CliIo, chat?: ChatModel): Promise<Reranker | undefined> {
  switch (kind) {
    case 'none':
      return undefined;
    case 'mmr': {
      const model = await loci.embedder();
      if (!model) throw new LociError('NOT_SUPPORTED', '--rerank mmr needs vectors, and this index has none (embedder none).');
      return mmrReranker(async (texts, signal) => (await embedMany({ model, values: texts, purpose: 'document', ...(signal ? { abortSignal: signal } : {}) })).embeddings);
    }
    case 'cross-encoder':
      return crossEncoderReranker({ model: io.env.LOCI_RERANK_MODEL ?? 'Xenova/ms-marco-MiniLM-L-6-v2', offline: loci.config.embedderOptions.offline });
    case 'llm':
      return llmYesNoReranker(chat ?? chatModelFromEnv(io.env, loci.config.llm));
    case 'cohere':
    case 'voyage': {
      const baseUrl = io.env.LOCI_RERANK_BASE_URL ?? (kind === 'cohere' ? 'https://api.cohere.com/v2' : 'https://api.voyageai.com/v1');
      const model = io.env.LOCI_RERANK_MODEL ?? (kind === 'cohere' ? 'rerank-v3.5' : 'rerank-2');
      const apiKey = io.env.LOCI_RERANK_API_KEY;
      return apiReranker({ format: kind, baseUrl, model, ...(apiKey ? { apiKey } : {}) });
    }
    default:
      throw new LociError('INVALID_ARGUMENT', `--rerank must be none, mmr, llm, cross-encoder, cohere or voyage; got "${kind}".`);
  }
}

/** The sources the answer cites; all that were packed when it cites none (saying so). */
function sourcesList(sources: ReturnType<typeof numbered>, cited: readonly number[]): string {
  const line = (source: (typeof sources)[number]) => `[${source.n}] ${source.path}:${source.startLine}-${source.endLine}`;
  if (sources.length === 0) return 'Sources:\n(none)';
  if (cited.length === 0) return `Sources packed (the answer cites none of them):\n${sources.map(line).join('\n')}`;
  const uncited = sources.length - cited.length;
  const more = uncited > 0 ? `\n(${uncited} more packed, not cited; --json lists every source)` : '';
  const listed = sources.filter((source) => cited.includes(source.n)).map(line);
  return `Sources cited:\n${listed.join('\n')}${more}`;
}

/** A citation the answer made up is told: what it names is not among what the model was given. */
function unknownCitations(unknown: readonly number[], count: number): string {
  const listed = unknown.map((n) => `[${n}]`).join(', ');
  const which = unknown.length === 1 ? `cites ${listed}, which is` : `cites ${listed}, which are`;
  if (count === 0) return `The answer ${which} not a source: it was given none; check those claims.`;
  return `The answer ${which} not among the ${count} numbered sources it was given (1 to ${count}); check those claims against the sources.`;
}

function numbered(built: BuiltContext) {
  return built.items.map((item, index) => ({ n: index + 1, path: item.path, startLine: item.startLine, endLine: item.endLine })).filter((source) => source.path !== '(repository map)');
}

function contextJson(built: BuiltContext) {
  return {
    tokens: built.tokens,
    prompt: built.prompt,
    messages: built.messages,
    sources: built.sources,
    unit: built.unit,
    tokenizer: built.tokenizer,
    mode: built.mode,
    skipped: built.skipped,
    packing: built.packing,
    ...(built.pickedFiles ? { pickedFiles: built.pickedFiles } : {}),
    ...(built.conversation ? { conversation: built.conversation } : {}),
    warnings: built.warnings,
    degraded: built.degraded,
    degradedParts: built.degradedParts,
  };
}

function writeWarnings(io: CliIo, warnings: readonly string[]): void {
  for (const warning of warnings) io.stderr.write(`warning: ${printable(warning)}\n`);
}

function int(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new LociError('INVALID_ARGUMENT', `${flag} must be a positive integer; got "${value}".`);
  return parsed;
}
