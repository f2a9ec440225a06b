import { isPlainObject } from './parse-file.js';
import { schemaAt } from './schema-walk.js';
import { meantKey } from '../errors/meant-key.js';

/**
 * What a folder's own loci.config.json may set without the user's trust: local keys that
 * change how this folder is chunked and ranked, never where data or keys go, what runs, what
 * is read outside the folder or how much of the machine loci uses. Anything not allowed here
 * (including keys added to the schema later) is refused: deny by default.
 */
const allowed: Array<{ path: string; accepts?: (value: unknown) => boolean; choices?: readonly string[] }> = [
  // The shipped static model, by name or in full (a file path would be read: only the user picks one).
  { path: 'embedder', choices: ['none', 'static', 'static:loci-static-v1'] },
  { path: 'sources.exclude' },
  { path: 'sources.respectGitignore', accepts: (value) => value === true },
  { path: 'sources.maxFileBytes', accepts: (value) => typeof value !== 'number' || value <= 10_000_000 },
  { path: 'chunking' },
  { path: 'search.topK' },
  { path: 'search.mode' },
  { path: 'search.threshold' },
  { path: 'search.fieldWeights' },
  { path: 'search.fusion' },
  { path: 'search.weights' },
  { path: 'search.rolePenalties' },
  { path: 'search.testSubjectShare' },
  { path: 'search.rolePriorDepth' },
  { path: 'search.candidatePool' },
  { path: 'search.definitionsFirst' },
  { path: 'search.ranker', choices: ['default', 'none'] },
  { path: 'memory.weights' },
  { path: 'memory.recencyHalfLifeDays' },
  { path: 'memory.contextWindow' },
  { path: 'memory.topK' },
  { path: 'memory.knowledgeThreshold' },
  { path: 'memory.knowledgeTopK' },
  { path: 'cache.maxUnreferencedVectors' },
  { path: 'indexing.progressive' },
  { path: 'indexing.worker' },
];

/** Why a key is refused, most specific path first. */
const reasons: Array<{ path: string; reason: string }> = [
  { path: 'store', reason: 'chooses where the index and memory are written' },
  { path: 'embedder', reason: 'chooses the embedder, and a remote one sends your code off this machine (a folder may pick only "none" or "static")' },
  { path: 'embedderOptions.baseUrl', reason: 'chooses the endpoint that receives your code and API key' },
  { path: 'embedderOptions.apiKeyEnv', reason: 'names the environment variable whose value is sent as the API key' },
  { path: 'embedderOptions.tokenCommand', reason: 'runs a command on your machine to get an access token' },
  { path: 'embedderOptions', reason: 'configures the embedder, which only your own config chooses' },
  { path: 'llm.baseUrl', reason: 'chooses the endpoint that receives LOCI_LLM_API_KEY, your questions and code' },
  { path: 'llm', reason: 'configures the chat model, which only your own config chooses' },
  { path: 'search.ranker', reason: 'loads a ranker model from a file path (a folder may pick only "default" or "none")' },
  { path: 'sources.respectGitignore', reason: 'turning it off indexes files .gitignore keeps out, such as .env' },
  { path: 'sources.maxFileBytes', reason: 'a folder may set at most 10000000' },
  { path: 'memory.dedupeSimilarity', reason: 'decides which memories are merged into others' },
  { path: 'indexing', reason: "sets the indexing process's resources" },
  { path: 'git', reason: 'decides which hosts receive your git token' },
];

export interface RefusedKey {
  path: string;
  value: unknown;
  reason: string;
}

const covers = (rule: string, path: string) => path === rule || path.startsWith(`${rule}.`);

/**
 * The keys of a folder config that only the user's own config may set. Keys a later,
 * trusted layer sets as well (`overridden`) are not refused: the user's value wins anyway.
 */
export function refusedFolderKeys(values: Record<string, unknown>, overridden: ReadonlySet<string> = new Set()): RefusedKey[] {
  const refused: RefusedKey[] = [];
  const visit = (node: Record<string, unknown>, prefix: string[]): void => {
    for (const [key, value] of Object.entries(node)) {
      if (value === undefined || (isPlainObject(value) && Object.keys(value).length === 0)) continue; // sets nothing
      const path = [...prefix, key].join('.');
      // Overridden by the user, or unknown (the schema check then names it with the known keys).
      if (overridden.has(path) || !schemaAt([...prefix, key])) continue;
      const rule = allowed.find((candidate) => covers(candidate.path, path));
      if (rule && accepted(rule, value)) continue;
      // An object under a refused key is reported leaf by leaf, unless a rule covers it whole.
      if (!rule && isPlainObject(value)) {
        visit(value, [...prefix, key]);
        continue;
      }
      refused.push({ path, value, reason: reasons.find((candidate) => covers(candidate.path, path))?.reason ?? 'only your own config may set it' });
    }
  };
  visit(values, []);
  return refused;
}

const accepted = (rule: (typeof allowed)[number], value: unknown) => (rule.choices ? typeof value === 'string' && rule.choices.includes(value) : !rule.accepts || rule.accepts(value));

/**
 * Values of a folder config's closed choices that misspell an allowed one (`"sttaic"`, `"STATIC"`
 * for the embedder): a typo to name, not a request to trust the folder with a remote embedder.
 */
export function misspelledFolderChoices(values: Record<string, unknown>): Array<{ path: string; value: string; meant: string }> {
  const found: Array<{ path: string; value: string; meant: string }> = [];
  for (const rule of allowed) {
    if (!rule.choices) continue;
    const value = rule.path.split('.').reduce<unknown>((node, key) => (isPlainObject(node) ? node[key] : undefined), values);
    // A path (`static:./model.bin`) is not a typo: it asks to read a file, which needs trust.
    if (typeof value !== 'string' || rule.choices.includes(value) || /[/\\]|\.bin$/i.test(value)) continue;
    const meant = meantKey(value.trim(), rule.choices);
    if (meant !== undefined) found.push({ path: rule.path, value, meant });
  }
  return found;
}

/** A copy of `values` without the given paths (keys a later layer overrides). */
export function withoutPaths(values: Record<string, unknown>, paths: ReadonlySet<string>, prefix: string[] = []): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const path = [...prefix, key];
    if (paths.has(path.join('.'))) continue;
    copy[key] = isPlainObject(value) ? withoutPaths(value, paths, path) : value;
  }
  return copy;
}
