import type { SearchFilter } from '../store/spec.js';
import { matcherForGlobs } from './path-match.js';

/**
 * The same semantics as the SQL filter builder, for rows held in memory (vector indexes,
 * memory records). Results are memoised per path, since many chunks share one path.
 */
export function compileFilter(filter: SearchFilter | undefined): ((path: string, language: string) => boolean) | undefined {
  if (!filter) return undefined;
  const languages = filter.languages && filter.languages.length > 0 ? new Set(filter.languages) : undefined;
  const prefixes = filter.pathPrefixes && filter.pathPrefixes.length > 0 ? filter.pathPrefixes : undefined;
  const glob = filter.pathGlobs && filter.pathGlobs.length > 0 ? matcherForGlobs(JSON.stringify(filter.pathGlobs)) : undefined;
  if (!languages && !prefixes && !glob) return undefined;
  const pathVerdicts = new Map<string, boolean>();
  return (path, language) => {
    if (languages && !languages.has(language)) return false;
    let verdict = pathVerdicts.get(path);
    if (verdict === undefined) {
      verdict = (!prefixes || prefixes.some((prefix) => path.startsWith(prefix))) && (!glob || glob(path));
      pathVerdicts.set(path, verdict);
    }
    return verdict;
  };
}
