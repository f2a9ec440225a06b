import picomatch from 'picomatch';

const compiled = new Map<string, (path: string) => boolean>();
const CACHE_LIMIT = 256;

/** A cached matcher for a JSON array of globs; a path matches if any glob does. */
export function matcherForGlobs(globsJson: string): (path: string) => boolean {
  let matcher = compiled.get(globsJson);
  if (!matcher) {
    const globs = JSON.parse(globsJson) as string[];
    matcher = picomatch(globs, { dot: true });
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(globsJson, matcher);
  }
  return matcher;
}

export function isGlob(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}
