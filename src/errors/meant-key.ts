import { closestMatch } from 'leven';

/**
 * The key of `keys` that `key` most likely misspells, if any: the same letters in another case,
 * the start of a key without its last few letters (`ttl` for `ttlMs`, `path` for `paths`), or a
 * letter or two apart (two edits for keys of seven letters or more, one for shorter ones).
 */
export function meantKey(key: string, keys: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const sameLetters = keys.find((known) => known.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  if (key.length < 3) return undefined;
  const shortened = keys.find((known) => known.length - key.length <= 3 && known.toLowerCase().startsWith(lower));
  if (shortened !== undefined || key.length < 4) return shortened;
  return closestMatch(key, keys, { maxDistance: key.length >= 7 ? 2 : 1 });
}
