import { z } from 'zod';
import { LociError } from './loci-error.js';
import { meantKey } from './meant-key.js';
import { describeIssues } from './zod-issues.js';

/**
 * The types of what a JavaScript caller passes the library, checked where it enters: a string
 * where a list belongs (`languages: 'ts'`), a number for a query, or a mode that does not exist
 * gave a raw TypeError deep inside, or was ignored (`mode: 'semantic'` ran hybrid). Only types
 * are checked here; ranges and meanings stay with the code that uses them. Keys not listed
 * pass (a caller may share one options object between calls), unless one is a misspelling of
 * a listed key (see `checkKeys`).
 */
export const strings = z.array(z.string());
export const abortSignal = z.custom<AbortSignal>((value) => value instanceof AbortSignal, 'expected an AbortSignal');
export const finite = z.number().finite();
export const callback = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', 'expected a function');

/** An object with keys (not null, not an array): what every options object and input record must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const plainObject = z.custom<object>(isPlainObject, 'expected an object');

/**
 * Every key of the library's option objects (search and symbol lookup, context, recall, memory
 * filters, runs, watching, createLoci). A key in none of them that is close to a key of the
 * object checked is a misspelling; a key of another family is an options object shared between
 * calls, and passes. `check-types.test.ts` holds every family's keys to this list.
 */
export const LIBRARY_OPTION_KEYS: ReadonlySet<string> = new Set([
  // search, findSymbol
  ...['topK', 'threshold', 'minSimilarity', 'paths', 'pathPrefixes', 'languages', 'roles', 'excludeRoles', 'mode', 'files', 'explain', 'ranker', 'signal', 'root'],
  // buildContext
  ...['maxTokens', 'softTokens', 'tokenizer', 'topN', 'include', 'all', 'smallProject', 'reranker', 'pickFilesWith', 'repoMapTokens', 'system', 'history'],
  ...['conversationId', 'historyTokens', 'conversationNamespace', 'template', 'readBudgetBytes'],
  // memory recall, list, forget and export filters
  ...['namespaces', 'kinds', 'ids', 'outcome', 'since', 'until', 'minScore', 'now', 'before', 'includeExpired', 'limit', 'offset'],
  // index runs, watch, createLoci
  ...['onProgress', 'progressive', 'prune', 'debounceMs', 'onEvent', 'store', 'config', 'embedder', 'env', 'inMemory', 'checkChanges', 'compact'],
]);

/**
 * A key of `value` that is none of the library's option keys but close to one of `keys` (the
 * same letters in another case, a key's start, or a letter or two apart) is refused with the key it meant:
 * `{ conversationID }` or `{ language: ['python'] }` was ignored without a word, and the call
 * answered as if the option had not been given. With `strict`, any key not in `keys` is refused
 * (an options object nobody shares, such as createLoci's, where a misspelled `store` would put
 * the index somewhere else).
 */
export function checkKeys(value: unknown, keys: readonly string[], what: string, options: { strict?: boolean; shared?: boolean } = {}): void {
  if (!isPlainObject(value)) return;
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    const meant = misspelled(key, keys, options.shared ?? true);
    if (meant !== undefined) {
      throw new LociError('INVALID_ARGUMENT', `Unknown key "${key}" in the ${what}: did you mean "${meant}"?`, { hint: `Rename "${key}" to "${meant}"; an unknown option is otherwise ignored.` });
    }
    if (options.strict) throw new LociError('INVALID_ARGUMENT', `Unknown key "${key}" in the ${what}.`, { hint: `The keys it takes: ${keys.join(', ')}.` });
  }
}

/** The key of `keys` that `key` misspells, if any (meant-key.ts); in an options object that may be `shared` between calls, never a key another call takes. */
function misspelled(key: string, keys: readonly string[], shared: boolean): string | undefined {
  if (shared && LIBRARY_OPTION_KEYS.has(key) && !keys.some((known) => known.toLowerCase() === key.toLowerCase())) return undefined;
  return meantKey(key, keys);
}

/** An argument that must be an object (options, an input record): anything else is INVALID_ARGUMENT, not a TypeError further in. */
export function checkObject(value: unknown, what: string, example: string): asserts value is Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw new LociError('INVALID_ARGUMENT', `The ${what} must be an object; got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`, { hint: `For example ${example}.` });
  }
}

export function checkTypes(schema: z.ZodObject, value: unknown, what: string, example: string): void {
  if (value === undefined) return;
  const result = schema.safeParse(value);
  if (!result.success) throw new LociError('INVALID_ARGUMENT', `Invalid ${what}: ${describeIssues(result.error.issues, '(options)', 3)}.`, { hint: `For example ${example}.` });
  checkKeys(value, Object.keys(schema.shape), what);
}

export function checkText(value: unknown, what: string): void {
  if (typeof value !== 'string') throw new LociError('INVALID_ARGUMENT', `The ${what} must be a string; got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`);
}
