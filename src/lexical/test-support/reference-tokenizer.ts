import { stemmer } from 'stemmer';
import { stopWords } from '../stop-words.js';

// The first, regex-based tokenizer, kept as the reference the fast scanner must match.
/**
 * Code-aware tokens for the lexical index and for queries (the same function on both
 * sides, so they always agree):
 * - prose words are lower-cased and Porter-stemmed (`running` → `run`);
 * - identifiers are kept whole, with separators removed so `getUserName`, `get_user_name`
 *   and `GetUserName` all give `getusername`, and also split into stemmed parts
 *   (`get`, `user`, `name`), so "user name" finds `getUserName`;
 * - stop words are dropped, except as part of a whole identifier.
 */

const wordPattern = /[\p{L}\p{N}_]+/gu;
const asciiOnly = /^[\x00-\x7f]*$/;
// camelCase, PascalCase, ACRONYMCase and letter/digit boundaries
const partPattern = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{L}+|\p{N}+/gu;
const MAX_TOKEN_LENGTH = 48;

const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 200_000;

function stem(word: string): string {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  // Porter is defined for English letters only; leave numbers and other scripts alone.
  const result = /^[a-z]+$/.test(word) && word.length > 2 ? stemmer(word) : word;
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(word, result);
  return result;
}

function foldDiacritics(text: string): string {
  return asciiOnly.test(text) ? text : text.normalize('NFKD').replace(/\p{M}+/gu, '');
}

/** Appends the tokens of `text` to `out` (avoids allocating per field on hot paths). */
function referenceTokenizeInto(text: string, out: string[]): string[] {
  const folded = foldDiacritics(text);
  for (const match of folded.matchAll(wordPattern)) {
    const word = match[0];
    if (word.length > MAX_TOKEN_LENGTH * 2) continue; // base64, hashes, minified blobs
    const parts = word.match(partPattern);
    if (!parts || parts.length === 0) continue;
    if (parts.length === 1) {
      const lower = (parts[0] as string).toLowerCase();
      if (lower.length <= MAX_TOKEN_LENGTH && !stopWords.has(lower)) out.push(stem(lower));
      continue;
    }
    const whole = parts.join('').toLowerCase();
    if (whole.length <= MAX_TOKEN_LENGTH) out.push(whole);
    for (const part of parts) {
      const lower = part.toLowerCase();
      if (!stopWords.has(lower) && lower.length <= MAX_TOKEN_LENGTH) out.push(stem(lower));
    }
  }
  return out;
}

export function referenceTokenize(text: string): string[] {
  return referenceTokenizeInto(text, []);
}
