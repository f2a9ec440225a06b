import picomatch from 'picomatch';
import { isLociError, isProviderFailure, LociError, throwIfAborted } from '../errors/index.js';
import type { SearchResponse } from '../retrieve/search-types.js';
import { relativeToRoot } from '../retrieve/build-filter.js';
import { DEFAULT_READ_BUDGET_BYTES, rootRelativePath, type SafeFile } from '../sources/safe-read.js';
import { checkText } from '../errors/check-types.js';
import { checkContextOptions } from './check-context-options.js';
import { packItems, type ContextItem, type DroppedItem } from './pack.js';
import { promptHistory } from './conversation-history.js';
import { buildRepoMap, pickFilesWithModel, type RepoMap } from './repo-map.js';
import { rerankItems } from './rerank/rerank.js';
import { rerankerId } from './rerank/spec.js';
import { DEFAULT_SYSTEM_PROMPT, type HistoryTurn, renderItem, renderMessages, renderPrompt } from './templates.js';
import { loadTokenCounter, type TokenCounter } from './tokenizer.js';

export type { BuiltContext, ContextOptions, ContextPacking, ContextSource, PackedItemInfo } from './context-types.js';
import type { BuiltContext, ContextOptions, ContextSource, PackedItemInfo } from './context-types.js';

/** Warnings and skipped parts, gathered while a context is built. */
interface Notes {
  warnings: string[];
  degraded: BuiltContext['degradedParts'];
}

/** Chunks kept after retrieval (and reranking) when the caller does not say. */
export const DEFAULT_CONTEXT_TOP_K = 20;

const SMALL_PROJECT = { files: 200, bytes: 170_000 };
const PICK_WEIGHT = 0.5;

/**
 * Retrieve → rerank → pack → template. Explicit includes come first; `/all` and small
 * projects send whole files; otherwise retrieved chunks are packed best first into the
 * room the template leaves, and the finished prompt is measured again so it never exceeds
 * the hard limit.
 */
export async function buildContext(loci: ContextSource, rawQuestion: string, options: ContextOptions = {}): Promise<BuiltContext> {
  if (typeof (loci as Partial<ContextSource> | null)?.files !== 'function') throw new LociError('INVALID_ARGUMENT', 'buildContext(loci, question) takes the engine createLoci() returns first.');
  checkText(rawQuestion, 'question');
  checkContextOptions(options);
  const { question, mentioned, allMask } = parseQuestion(rawQuestion);
  if (question === '' && mentioned.length === 0 && allMask === undefined) throw new LociError('QUERY_EMPTY', 'The question is empty.');
  const counter = await loadTokenCounter(options.tokenizer ?? 'o200k');
  const maxTokens = options.maxTokens ?? 8000;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new LociError('INVALID_ARGUMENT', `maxTokens must be a positive integer; got ${maxTokens}.`);
  const soft = Math.min(options.softTokens ?? Math.floor(maxTokens * 0.85), maxTokens);
  const notes: Notes = { warnings: [], degraded: [] };
  const system = options.system ?? DEFAULT_SYSTEM_PROMPT;
  const conversation = await conversationHistory(loci, question || rawQuestion, maxTokens, options, notes);
  const history = conversation?.turns ?? checkHistory(options.history);
  const base = { system, history, question: question || rawQuestion };
  const emptyPrompt = renderPrompt({ ...base, items: [] }, options.template);
  const overhead = counter.count(emptyPrompt) + counter.count('## Context\n\n');
  if (overhead > maxTokens) {
    throw new LociError('CONTEXT_TOO_LARGE', `The question, system prompt and history alone take ${overhead} ${counter.unit}; the limit is ${maxTokens}.`);
  }

  const files = await loci.files();
  const known = new Set(files.map((file) => file.path));
  // Every whole file goes through the safe reader: inside the root after links, allowed by the
  // ignore and secret rules, a regular file, capped per file and per call.
  const budgetBytes = options.readBudgetBytes ?? DEFAULT_READ_BUDGET_BYTES;
  const reader = loci.sourceReader({ budgetBytes });
  const signal = options.signal ? { signal: options.signal } : {};
  // An `@a/b` whose first folder the project does not have (`@typescript-eslint/no-explicit-any`
  // in pasted code) is part of the question, not an include; any other `@path` must exist.
  const folders = new Set(files.map((file) => file.path.split('/')[0] as string));
  const notPaths = mentioned.filter((path) => path.includes('/') && !/^(\/|\.\.?\/)/.test(path) && !folders.has(path.split('/')[0] as string));
  for (const word of notPaths) note(notes, undefined, `"@${word}" names no folder of the project, so it was read as part of the question.`);
  const includes = [...new Set([...(options.include ?? []), ...mentioned.filter((path) => !notPaths.includes(path))].map((path) => rootRelativePath(loci.root, path)))];
  const pinned: ContextItem[] = (await reader.readMany(includes, signal)).files.map((file) => ({ ...wholeFile(file), pinned: true, origin: 'include' }));
  // Counted with a bound: a huge include is refused after counting about maxTokens of it.
  const pinnedCost = await boundedCost(counter, pinned, maxTokens - overhead);
  if (overhead + pinnedCost > maxTokens) {
    throw new LociError(
      'CONTEXT_TOO_LARGE',
      `The included files take ${Number.isFinite(pinnedCost) ? pinnedCost : `more than ${maxTokens - overhead}`} ${counter.unit}; with the prompt that is over the limit of ${maxTokens}.`,
      {
        details: { included: includes, size: pinnedCost, limit: maxTokens },
      },
    );
  }

  let mode: BuiltContext['mode'] = 'retrieved';
  let candidates: ContextItem[] = [];
  let repoMap: RepoMap | undefined;
  let pickedFiles: string[] | undefined;
  // Masks match the indexed, root-relative paths (an absolute one inside the root is made relative; one outside it is refused).
  const given = options.all ?? allMask;
  const mask = given ? relativeToRoot(given.replace(/\\/g, '/').replace(/^\.\//, ''), loci.root, '/all') : given;
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  if (mask !== undefined) {
    mode = 'all';
    const matches = picomatch(mask || '**', { dot: true });
    const chosen = files.filter((file) => matches(file.path) && !includes.includes(file.path));
    if (chosen.length === 0) note(notes, undefined, `/all ${mask || '**'} matches no indexed file (loci status lists what the index holds).`);
    const indexedBytes = chosen.reduce((sum, file) => sum + file.size, 0);
    if (indexedBytes + reader.bytesRead > budgetBytes) {
      throw new LociError('CONTEXT_TOO_LARGE', `/all ${mask || '**'} matches ${chosen.length} files of ${indexedBytes} bytes; that is over the read budget of ${budgetBytes} bytes.`, {
        hint: 'Narrow the mask (e.g. "src/**/*.ts").',
        details: { files: chosen.length, bytes: indexedBytes, budget: budgetBytes },
      });
    }
    // Files the rules refuse now (changed since indexing, or gone) are left out, not fatal.
    candidates = (
      await reader.readMany(
        chosen.map((file) => file.path),
        { ...signal, skipRefused: true },
      )
    ).files.map((file) => ({ ...wholeFile(file), origin: 'all' as const, score: 1 }));
    const size = await boundedCost(counter, candidates, maxTokens - overhead - pinnedCost);
    if (overhead + pinnedCost + size > maxTokens) {
      throw new LociError(
        'CONTEXT_TOO_LARGE',
        `/all ${mask || '**'} matches ${candidates.length} files of ${Number.isFinite(size) ? size : `more than ${maxTokens - overhead - pinnedCost}`} ${counter.unit}; with the prompt that is over the limit of ${maxTokens}.`,
        {
          hint: 'Narrow the mask (e.g. "src/**/*.ts"), or raise the token limit (CLI --max-tokens, HTTP and MCP maxTokens).',
          details: { files: candidates.length, size, limit: maxTokens },
        },
      );
    }
  } else if (options.smallProject !== false && files.length > 0 && files.length < SMALL_PROJECT.files && totalBytes < SMALL_PROJECT.bytes) {
    const paths = files.filter((file) => !includes.includes(file.path)).map((file) => file.path);
    const whole = (await reader.readMany(paths, { ...signal, skipRefused: true })).files.map((file) => ({ ...wholeFile(file), origin: 'small-project' as const }));
    const size = await boundedCost(counter, whole, soft - overhead - pinnedCost);
    // Indexed documents are no files to read (nothing read): the retrieved chunks hold them.
    if (whole.length > 0 && overhead + pinnedCost + size <= soft) {
      mode = 'small-project';
      // Still ranked by the question, so the model reads the likeliest files first.
      const ranking = question ? await rankFiles(loci, question, options, notes) : new Map<string, number>();
      candidates = whole.map((item) => ({ ...item, score: ranking.get(item.path) ?? 0 }));
    }
  }
  if (mode === 'retrieved' && question !== '') {
    if (options.pickFilesWith || options.repoMapTokens) {
      repoMap = buildRepoMap({ files, outline: await loci.outline() }, options.repoMapTokens || Math.floor(maxTokens / 4), (text) => counter.count(text));
    }
    if (options.pickFilesWith && repoMap) {
      try {
        pickedFiles = await pickFilesWithModel(options.pickFilesWith, question, repoMap, known, options.signal);
      } catch (error) {
        if (!isProviderFailure(error)) throw error;
        note(notes, 'file-pick', `The chat model's file pick failed and was skipped: ${error.message}`);
      }
    }
    candidates = await retrieve(loci, question, options, pickedFiles, notes);
  }

  throwIfAborted(options.signal);
  const mapItem: ContextItem[] = repoMap && options.repoMapTokens ? [{ path: '(repository map)', startLine: 1, endLine: repoMap.files, text: repoMap.text, score: Infinity, pinned: true }] : [];
  const packed = packItems([...mapItem, ...pinned, ...candidates], {
    hardLimit: maxTokens - overhead,
    softLimit: soft - overhead,
    // "[99]" is as wide as any number the item can get; +2 for the blank line between items.
    cost: (item) => counter.count(renderItem(item, 99)) + 2,
  });
  let items = packed.items;
  const dropped: DroppedItem[] = [...packed.dropped];
  let prompt = renderPrompt({ ...base, items }, options.template);
  let tokens = counter.count(prompt);
  // BPE counts are not exactly additive: drop the weakest item until the whole fits.
  while (tokens > maxTokens && items.length > 0) {
    const weakest = items.reduce((worst, item) => (!item.pinned && item.score < worst.score ? item : worst), items.find((item) => !item.pinned) ?? (items[items.length - 1] as ContextItem));
    items = items.filter((item) => item !== weakest);
    dropped.push({ item: weakest, reason: 'refit' });
    prompt = renderPrompt({ ...base, items }, options.template);
    tokens = counter.count(prompt);
  }
  return {
    tokens,
    unit: counter.unit,
    tokenizer: counter.id,
    prompt,
    messages: renderMessages({ ...base, items }),
    sources: items.filter((item) => item.path !== '(repository map)').map((item) => ({ path: item.path, startLine: item.startLine, endLine: item.endLine })),
    items,
    mode,
    skipped: packed.skipped.length + (packed.items.length - items.length),
    packing: {
      hardTokens: maxTokens,
      softTokens: soft,
      overheadTokens: overhead,
      items: items.map((item, index) => ({ ...itemInfo(item), tokens: counter.count(renderItem(item, index + 1)) + 2 })),
      dropped: dropped.map(({ item, reason, cost }) => ({ ...itemInfo(item), ...(cost !== undefined ? { tokens: cost } : {}), reason })),
    },
    ...(repoMap ? { repoMap: { files: repoMap.files, truncated: repoMap.truncated } } : {}),
    ...(pickedFiles ? { pickedFiles } : {}),
    ...(conversation ? { conversation: { id: conversation.id, turns: conversation.turns.length, tokens: conversation.tokens, omitted: conversation.omitted } } : {}),
    warnings: [...new Set(notes.warnings)],
    degraded: notes.degraded.length > 0,
    degradedParts: [...new Set(notes.degraded)],
  };
}

/** `conversationId`'s budgeted history, read from the source's memory (none asked: undefined). */
async function conversationHistory(loci: ContextSource, question: string, maxTokens: number, options: ContextOptions, notes: Notes) {
  const id = options.conversationId;
  if (id === undefined) {
    for (const option of ['historyTokens', 'conversationNamespace'] as const) {
      if (options[option] !== undefined) throw new LociError('INVALID_ARGUMENT', `${option} needs a conversationId: it applies to that conversation’s history.`);
    }
    return undefined;
  }
  if (typeof id !== 'string' || id.trim() === '') throw new LociError('INVALID_ARGUMENT', `conversationId must be a non-empty string; got ${JSON.stringify(id)}.`);
  if (options.history !== undefined) {
    throw new LociError('INVALID_ARGUMENT', 'Give either history (turns as they are) or conversationId (a stored conversation), not both.', {
      hint: 'Drop history to let the stored conversation supply the turns.',
    });
  }
  const historyTokens = options.historyTokens;
  if (historyTokens !== undefined && (!Number.isInteger(historyTokens) || historyTokens < 1))
    throw new LociError('INVALID_ARGUMENT', `historyTokens must be a positive integer; got ${JSON.stringify(historyTokens)}.`);
  if (!loci.memory)
    throw new LociError('INVALID_ARGUMENT', 'conversationId needs a source with memory (an engine from createLoci); this one has none.', { hint: 'Pass the turns as history instead.' });
  const found = await promptHistory(await loci.memory(), {
    conversationId: id,
    question,
    maxTokens,
    ...(historyTokens !== undefined ? { historyTokens } : {}),
    ...(options.conversationNamespace !== undefined ? { namespace: options.conversationNamespace } : {}),
    ...(options.tokenizer !== undefined ? { tokenizer: options.tokenizer } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (found.turns.length === 0 && found.omitted > 0) {
    const which = found.omitted === 1 ? 'The one turn' : `None of the ${found.omitted} turns`;
    notes.warnings.push(`${which} of conversation "${id}" fits its history budget; raise historyTokens (or maxTokens) to include ${found.omitted === 1 ? 'it' : 'them'}.`);
  }
  return { id, ...found };
}

/** Turns given as they are: each `{userQuery, assistantResponse}` (a chat message list is refused, saying how to pass it). */
function checkHistory(history: ContextOptions['history']): readonly HistoryTurn[] {
  if (history === undefined) return [];
  if (!Array.isArray(history)) throw new LociError('INVALID_ARGUMENT', `history must be an array of turns {userQuery, assistantResponse}; got ${typeof history}.`);
  history.forEach((turn: unknown, index) => {
    const fields = (turn ?? {}) as Record<string, unknown>;
    if (typeof fields.userQuery !== 'string' || typeof fields.assistantResponse !== 'string') {
      throw new LociError('INVALID_ARGUMENT', `history[${index}] must be a turn {userQuery, assistantResponse} of strings; got keys ${JSON.stringify(Object.keys(fields))}.`, {
        hint: 'For chat messages ({role, content}), pair each user message with the assistant reply after it: {userQuery: user.content, assistantResponse: assistant.content}. Or store the turns (memory.addTurn) and pass conversationId.',
      });
    }
  });
  return history;
}

function itemInfo(item: ContextItem): Omit<PackedItemInfo, 'tokens'> {
  const origin = item.path === '(repository map)' ? 'repo-map' : (item.origin ?? 'retrieved');
  return { path: item.path, startLine: item.startLine, endLine: item.endLine, score: Number.isFinite(item.score) ? item.score : 1, origin };
}

function note(notes: Notes, part: BuiltContext['degradedParts'][number] | undefined, warning: string): void {
  notes.warnings.push(warning);
  if (part) notes.degraded.push(part);
}

/** A search's own warnings and skipped signals become the context's. */
function noteSearch(notes: Notes, response: SearchResponse): void {
  notes.warnings.push(...response.warnings);
  if (response.degradedParts.includes('vector')) notes.degraded.push('vector');
}

async function retrieve(loci: ContextSource, question: string, options: ContextOptions, picked: string[] | undefined, notes: Notes): Promise<ContextItem[]> {
  const topN = options.topN ?? 50;
  const response = await loci.search(question, {
    topK: topN,
    ...(options.paths ? { paths: options.paths } : {}),
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
    ...(options.minSimilarity !== undefined ? { minSimilarity: options.minSimilarity } : {}),
  });
  noteSearch(notes, response);
  let items: ContextItem[] = response.results.map((result) => ({
    path: result.path,
    startLine: result.startLine,
    endLine: result.endLine,
    text: result.text,
    score: result.score,
    language: result.language,
    origin: 'retrieved',
  }));
  if (picked && picked.length > 0) {
    // The model's pick is one more signal: a bonus for chunks of picked files, best pick highest.
    const bonus = new Map(picked.map((path, index) => [path, PICK_WEIGHT * (1 - index / (picked.length * 2))]));
    const top = Math.max(...items.map((item) => item.score), 1e-9);
    items = items.map((item) => ({ ...item, score: item.score / top + (bonus.get(item.path) ?? 0) })).sort((a, b) => b.score - a.score);
  }
  const states = new Map(response.results.filter((result) => result.stale).map((result) => [result.path, result.deleted ? 'deleted' : 'changed'] as const));
  if (options.reranker) {
    try {
      const reranked = await rerankItems(options.reranker, question, items, { topK: options.topK ?? DEFAULT_CONTEXT_TOP_K, ...(options.signal ? { signal: options.signal } : {}) });
      for (const warning of reranked.warnings) note(notes, undefined, warning);
      return noteStale(notes, reranked.items, states);
    } catch (error) {
      // Degrade, never lose: a failing reranker leaves the retrieval order, and says so.
      if (isLociError(error) && error.code === 'ABORTED') throw error;
      throwIfAborted(options.signal);
      note(notes, 'reranker', `The reranker ${rerankerId(options.reranker)} failed, so the retrieval order was kept: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // One default on every door (CLI, HTTP, MCP, library): the same question packs the same chunks.
  return noteStale(notes, items.slice(0, options.topK ?? DEFAULT_CONTEXT_TOP_K), states);
}

/** Says which packed files changed or were deleted since they were indexed (their indexed text is what is packed), as search flags them. */
function noteStale(notes: Notes, items: ContextItem[], states: ReadonlyMap<string, 'changed' | 'deleted'>): ContextItem[] {
  const paths = (state: 'changed' | 'deleted') => [...new Set(items.filter((item) => states.get(item.path) === state).map((item) => item.path))];
  const deleted = paths('deleted');
  const changed = paths('changed');
  const list = (found: string[]) => `${found.slice(0, 5).join(', ')}${found.length > 5 ? ` and ${found.length - 5} more` : ''}`;
  if (deleted.length > 0) note(notes, undefined, `Packed from the index, deleted since it was indexed: ${list(deleted)}. Run loci index to drop them.`);
  if (changed.length > 0) note(notes, undefined, `Packed from the index, changed since it was indexed: ${list(changed)}. Run loci index for their current text.`);
  return items;
}

async function rankFiles(loci: ContextSource, question: string, options: ContextOptions, notes: Notes): Promise<Map<string, number>> {
  const response = await loci.search(question, { topK: 200, files: true, ...(options.paths ? { paths: options.paths } : {}) });
  noteSearch(notes, response);
  return new Map(response.results.map((result) => [result.path, result.score]));
}

/** `@path` words are explicit includes; a leading `/all [mask]` asks for every matching file. */
export function parseQuestion(raw: string): { question: string; mentioned: string[]; allMask: string | undefined } {
  let text = raw.trim();
  let allMask: string | undefined;
  const all = /^\/all(?:\s+|$)/.exec(text);
  if (all) {
    text = text.slice(all[0].length);
    // The next word is a mask only if it looks like one (a glob, a path or an extension).
    const mask = /^(\S*[*?/.[{]\S*)(?:\s+|$)/.exec(text);
    allMask = mask ? (mask[1] as string) : '';
    if (mask) text = text.slice(mask[0].length);
  }
  const mentioned: string[] = [];
  text = text.replace(/(^|\s)@([\w./-]+\.[\w]+|[\w./-]+\/[\w./-]+)/g, (_, space: string, path: string) => {
    mentioned.push(path);
    return `${space}${path}`;
  });
  return { question: text.trim(), mentioned, allMask };
}

function wholeFile(file: SafeFile): ContextItem {
  const { path, text } = file;
  const trimmed = text.endsWith('\n') ? text.slice(0, -1) : text;
  const lines = trimmed.split('\n').length;
  return { path, startLine: 1, endLine: lines, text: trimmed, score: 1, language: languageHint(path) };
}

const COUNT_SLICE_CHARS = 16_384;

/**
 * The cost of items as packing counts it, or Infinity once it clearly passes `limit`: big
 * texts are counted in line-aligned slices with a turn for the event loop between them, so
 * a megabyte include neither blocks the server nor is counted past the limit.
 */
async function boundedCost(counter: TokenCounter, items: readonly ContextItem[], limit: number): Promise<number> {
  let total = 0;
  for (const item of items) {
    const text = renderItem(item, 99);
    if (text.length <= COUNT_SLICE_CHARS) total += counter.count(text) + 2;
    else {
      let sliced = 2;
      for (let start = 0; start < text.length; ) {
        const newline = text.indexOf('\n', start + COUNT_SLICE_CHARS);
        const end = newline === -1 ? text.length : newline + 1;
        sliced += counter.count(text.slice(start, end));
        start = end;
        // Slices never merge tokens across a cut, so their sum is an upper estimate: stop well past the limit only.
        if (total + sliced > limit * 1.25 + 64) return Infinity;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      total += counter.count(text) + 2;
    }
    if (total > limit) return total;
  }
  return total;
}

function languageHint(path: string): string {
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return (
    {
      ts: 'typescript',
      tsx: 'tsx',
      js: 'javascript',
      mjs: 'javascript',
      py: 'python',
      go: 'go',
      rs: 'rust',
      java: 'java',
      cs: 'csharp',
      md: 'markdown',
      json: 'json',
      rb: 'ruby',
      c: 'c',
      h: 'c',
      cpp: 'cpp',
    }[extension] ?? ''
  );
}

export type { TokenCounter };
