/** Half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Whether a string is well-formed Unicode: a store keeps text as UTF-8, which cannot hold half
 * of a surrogate pair (SQLite would store U+FFFD instead), so ids that must come back as given
 * are checked with this before they are stored.
 */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}
