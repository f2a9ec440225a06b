import picomatch from 'picomatch';

const compiled = new Map<string, (path: string) => boolean>();
const CACHE_LIMIT = 256;

/**
 * A cached matcher for a JSON array of globs: a path matches when any include glob matches
 * (or there are none) and no exclude (`!glob`) does. Includes are OR-ed, excludes AND-ed.
 */
export function matcherForGlobs(globsJson: string): (path: string) => boolean {
  let matcher = compiled.get(globsJson);
  if (!matcher) {
    const globs = JSON.parse(globsJson) as string[];
    const includes = globs.filter((glob) => !glob.startsWith('!'));
    const excludes = globs.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1));
    const included = includes.length > 0 ? picomatch(includes, { dot: true }) : () => true;
    const excluded = excludes.length > 0 ? picomatch(excludes, { dot: true }) : () => false;
    matcher = (path: string) => included(path) && !excluded(path);
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(globsJson, matcher);
  }
  return matcher;
}

export function isGlob(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}
