import { LociError } from '../errors/index.js';
import type { ChatModel } from '../llm/spec.js';

export interface RepoMapInput {
  files: ReadonlyArray<{ path: string }>;
  outline: ReadonlyArray<{ path: string; symbols: ReadonlyArray<{ name: string; line: number }> }>;
}

export interface RepoMap {
  text: string;
  /** Size of `text` in the counter's unit. */
  size: number;
  files: number;
  /** Files left out (or cut to fewer symbols) to stay within the budget. */
  truncated: boolean;
}

/**
 * A budgeted map of the repository: one line per file with its top-level symbols
 * (`src/store/location.ts: resolveStoreLocation, openStore`). When the full map is over the
 * budget, symbols per file are cut first (down to the path alone), then files, in path order.
 */
export function buildRepoMap(input: RepoMapInput, budget: number, count: (text: string) => number, maxSymbols = 12): RepoMap {
  const symbolsOf = new Map(input.outline.map((entry) => [entry.path, entry.symbols.map((symbol) => symbol.name)]));
  const paths = input.files.map((file) => file.path).sort();
  for (let perFile = maxSymbols; perFile >= 0; perFile = perFile > 3 ? Math.floor(perFile / 2) : perFile - 1) {
    const lines = paths.map((path) => line(path, symbolsOf.get(path) ?? [], perFile));
    const text = lines.join('\n');
    const size = count(text);
    if (size <= budget) return { text, size, files: lines.length, truncated: perFile < maxSymbols && paths.some((path) => (symbolsOf.get(path)?.length ?? 0) > perFile) };
  }
  // Even bare paths are too many: keep as many as fit.
  const kept: string[] = [];
  let size = 0;
  for (const path of paths) {
    const cost = count(`${path}\n`);
    if (size + cost > budget) break;
    kept.push(path);
    size += cost;
  }
  const text = kept.join('\n');
  return { text, size: count(text), files: kept.length, truncated: true };
}

function line(path: string, symbols: readonly string[], perFile: number): string {
  const shown = [...new Set(symbols)].slice(0, perFile);
  return shown.length > 0 ? `${path}: ${shown.join(', ')}${symbols.length > perFile ? ', …' : ''}` : path;
}

/**
 * Continue's "repo map" pick: the model reads the map and names the 5–10 files most likely
 * to matter. Only paths that exist in the map are kept, in the order given.
 */
export async function pickFilesWithModel(model: ChatModel, question: string, map: RepoMap, known: ReadonlySet<string>, signal?: AbortSignal): Promise<string[]> {
  const { text } = await model.complete({
    messages: [
      {
        role: 'system',
        content: 'You pick the files of a repository that are most relevant to a question. Reply with 5 to 10 file paths from the map, one per line, most relevant first, and nothing else.',
      },
      { role: 'user', content: `Repository map:\n${map.text}\n\nQuestion: ${question}` },
    ],
    temperature: 0,
    ...(signal ? { abortSignal: signal } : {}),
  });
  const picked: string[] = [];
  for (const raw of text.split('\n')) {
    const path =
      raw
        .replace(/^[\s\-*\d.)`]+/, '')
        .replace(/[`\s]+$/, '')
        .split(':')[0]
        ?.trim() ?? '';
    if (known.has(path) && !picked.includes(path)) picked.push(path);
  }
  if (picked.length === 0 && text.trim() !== '') {
    throw new LociError('LLM_FAILED', `The model's file pick named no file of the repository: ${text.slice(0, 200)}`);
  }
  return picked.slice(0, 10);
}
