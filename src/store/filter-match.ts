import type { SearchFilter } from './spec.js';
import { matcherForGlobs } from './path-match.js';

/**
 * The same semantics as the SQL filter builder, for rows held in memory (vector indexes,
 * memory records). Glob verdicts are memoised per path, since many chunks share one path.
 */
/**
 * A row predicate; `prefixes`, when present, is a hint: only paths under one of them can pass.
 * `pathFree`: the predicate reads the language alone, so a caller may pass '' for the path
 * instead of decoding it (a new process reads paths from the segment a block at a time).
 */
export type RowFilter = ((path: string, language: string) => boolean) & { prefixes?: readonly string[]; pathFree?: boolean };

export function compileFilter(filter: SearchFilter | undefined): RowFilter | undefined {
  if (!filter) return undefined;
  const languages = filter.languages && filter.languages.length > 0 ? new Set(filter.languages) : undefined;
  const prefixes = filter.pathPrefixes && filter.pathPrefixes.length > 0 ? filter.pathPrefixes : undefined;
  const set = filter.pathSet ? new Set(filter.pathSet) : undefined;
  const pathGlob = filter.pathGlobs && filter.pathGlobs.length > 0 ? matcherForGlobs(JSON.stringify(filter.pathGlobs)) : undefined;
  const glob = set ? (path: string) => set.has(path) && (!pathGlob || pathGlob(path)) : pathGlob;
  if (!languages && !prefixes && !glob) return undefined;
  let accept: RowFilter;
  if (!glob) {
    // Prefix checks are cheaper than a memo lookup, and memory has one path per record.
    accept = (path, language) => {
      if (languages && !languages.has(language)) return false;
      if (!prefixes) return true;
      for (const prefix of prefixes) if (path.startsWith(prefix)) return true;
      return false;
    };
    if (prefixes) accept.prefixes = prefixes;
    else accept.pathFree = true;
    return accept;
  }
  const pathVerdicts = new Map<string, boolean>();
  accept = (path, language) => {
    if (languages && !languages.has(language)) return false;
    let verdict = pathVerdicts.get(path);
    if (verdict === undefined) {
      verdict = (!prefixes || prefixes.some((prefix) => path.startsWith(prefix))) && (!glob || glob(path));
      pathVerdicts.set(path, verdict);
    }
    return verdict;
  };
  if (prefixes) accept.prefixes = prefixes;
  return accept;
}
