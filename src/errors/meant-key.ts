import { closestMatch } from 'leven';

/**
 * The key of `keys` that `key` most likely misspells, if any: the same letters in another case or
 * with `_` or `-` between words, the start of a key without its last few letters (`ttl` for
 * `ttlMs`, `path` for `paths`), a letter or two apart (two edits for keys of seven letters or
 * more, one for shorter ones), or the same letters in another order.
 */
export function meantKey(key: string, keys: readonly string[]): string | undefined {
  // The same letters in another case or style (`TOPK`, `top_k`, `top-k` for `topK`).
  const plain = (word: string) => word.toLowerCase().replace(/[_-]/g, '');
  const lower = key.toLowerCase();
  const sameLetters = keys.find((known) => known.toLowerCase() === lower) ?? keys.find((known) => plain(known) === plain(key));
  if (sameLetters !== undefined) return sameLetters;
  if (key.length < 3) return undefined;
  const shortened = keys.find((known) => known.length - key.length <= 3 && known.toLowerCase().startsWith(lower));
  if (shortened !== undefined || key.length < 4) return shortened;
  const close = closestMatch(key, keys, { maxDistance: key.length >= 7 ? 2 : 1 });
  if (close !== undefined) return close;
  // Letters swapped (`sttaic`): two edits apart, but the same letters.
  const letters = (word: string) => [...word.toLowerCase()].sort().join('');
  return keys.find((known) => known.length === key.length && letters(known) === letters(key));
}

/** ` Did you mean "python"?` for the choice `value` most likely misspells, else ''. */
export function meantChoice(value: string, choices: readonly string[]): string {
  const meant = meantKey(value.trim(), choices);
  return meant === undefined ? '' : ` Did you mean "${meant}"?`;
}
