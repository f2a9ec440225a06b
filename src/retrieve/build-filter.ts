import { LociError } from '../errors/index.js';
import type { SearchFilter } from '../store/spec.js';
import { isGlob } from './path-match.js';

/**
 * Turns user path arguments into a filter: a glob stays a glob (`src/**\/*.ts`), a plain
 * path means that file or everything under that folder (`src/store`).
 */
export function buildFilter(options: { paths?: readonly string[]; languages?: readonly string[]; pathPrefixes?: readonly string[] }): SearchFilter | undefined {
  const filter: SearchFilter = {};
  const globs: string[] = [];
  for (const raw of options.paths ?? []) {
    const path = raw.trim().replace(/\\/g, '/').replace(/^\.\//, '');
    if (!path) throw new LociError('INVALID_ARGUMENT', 'An empty --path was given.', { hint: 'Pass a glob such as "src/**/*.ts" or a folder such as "src".' });
    if (isGlob(path)) globs.push(path);
    else {
      const bare = path.replace(/\/+$/, '');
      globs.push(bare, `${bare}/**`);
    }
  }
  if (globs.length > 0) filter.pathGlobs = globs;
  if (options.pathPrefixes && options.pathPrefixes.length > 0) filter.pathPrefixes = [...options.pathPrefixes];
  if (options.languages && options.languages.length > 0) filter.languages = options.languages.map((language) => language.trim().toLowerCase());
  return Object.keys(filter).length > 0 ? filter : undefined;
}
