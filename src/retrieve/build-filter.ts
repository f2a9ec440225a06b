import { LociError } from '../errors/index.js';
import type { SearchFilter } from '../store/spec.js';
import { expandLanguages } from './language-aliases.js';
import { isGlob } from '../store/path-match.js';

/**
 * Turns user path arguments into a filter: a glob stays a glob (`src/**\/*.ts`), a plain
 * path means that file or everything under that folder (`src/store`). A leading `!`
 * excludes: include globs are OR-ed, exclude globs AND-ed (`--path src --path '!**\/*.test.ts'`
 * is src without its tests). Language names go through the aliases (`ts` → typescript + tsx).
 */
export function buildFilter(options: { paths?: readonly string[]; languages?: readonly string[]; pathPrefixes?: readonly string[]; root?: string }): SearchFilter | undefined {
  const filter: SearchFilter = {};
  const globs: string[] = [];
  for (const raw of options.paths ?? []) {
    const trimmed = raw.trim();
    const negated = trimmed.startsWith('!');
    const path = relativeToRoot(trimmed.replace(/^!/, '').trim().replace(/\\/g, '/').replace(/^\.\//, ''), options.root);
    if (!path)
      throw new LociError('INVALID_ARGUMENT', `An empty path filter was given${negated ? ' after "!"' : ''} (CLI --path, HTTP and MCP paths).`, {
        hint: 'Pass a glob such as "src/**/*.ts", a folder such as "src", or "!glob" to exclude.',
      });
    const mark = negated ? '!' : '';
    if (isGlob(path)) globs.push(mark + path);
    else {
      const bare = path.replace(/\/+$/, '');
      globs.push(mark + bare, `${mark}${bare}/**`);
    }
  }
  if (globs.length > 0) filter.pathGlobs = globs;
  if (options.pathPrefixes && options.pathPrefixes.length > 0) filter.pathPrefixes = [...options.pathPrefixes];
  if (options.languages && options.languages.length > 0) filter.languages = expandLanguages(options.languages);
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/**
 * Paths and globs are matched against root-relative paths: an absolute path inside the root
 * (as a shell completes it) is made relative; any other absolute path, or one through `..`,
 * can never match, which is said instead of answering "No results". `what` names the path in
 * the error (a path filter, an /all mask).
 */
export function relativeToRoot(path: string, root: string | undefined, what = 'The path filter'): string {
  if (!path.startsWith('/')) {
    // `../x` climbs out of the indexed folder: no indexed path can match it either.
    if (path.split('/').includes('..')) throw outsideRoot(path, what);
    return path;
  }
  const base = root?.replace(/\\/g, '/').replace(/\/+$/, '');
  if (base && (path === base || path.startsWith(`${base}/`))) return path.slice(base.length + 1) || '**';
  throw outsideRoot(path, what);
}

function outsideRoot(path: string, what: string): LociError {
  return new LociError('PATH_OUTSIDE_ROOT', `${what} ${path} is not inside the indexed folder: paths are relative to it.`, {
    hint: 'Pass a folder or glob relative to the indexed folder, e.g. "src" or "src/**/*.ts" (`loci status` shows which folder is indexed).',
    details: { path },
  });
}
