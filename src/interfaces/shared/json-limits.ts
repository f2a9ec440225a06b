/** Deepest JSON nesting a caller may send; real requests stay under 10 levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests arrays/objects deeper than `maxDepth`. A linear scan of
 * the raw text (strings skipped), so a hostile body is refused before anything recurses
 * over it (zod, JSON.stringify, the store), which would overflow the stack.
 */
export function jsonDepthExceeds(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === 92 /* \ */) at++;
      else if (code === 34 /* " */) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth--;
  }
  return false;
}
