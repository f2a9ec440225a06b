import { stemmer } from 'stemmer';
import { stopWords } from './stop-words.js';

/**
 * Code-aware tokens for the lexical index and for queries (the same function on both
 * sides, so they always agree):
 * - prose words are lower-cased and Porter-stemmed (`running` → `run`);
 * - identifiers are kept whole, with separators removed so `getUserName`, `get_user_name`
 *   and `GetUserName` all give `getusername`, and also split into stemmed parts
 *   (`get`, `user`, `name`), so "user name" finds `getUserName`;
 * - stop words are dropped, except as part of a whole identifier.
 * A word is a run of letters, digits and `_`; parts split at case changes
 * (`HTTPServer` → `HTTP`, `Server`), letter/digit boundaries and underscores.
 */
export const TOKENIZER_VERSION = 1;

const MAX_TOKEN_LENGTH = 48;
const MAX_WORD_LENGTH = MAX_TOKEN_LENGTH * 2; // longer runs are base64, hashes, minified blobs
const nonAscii = /[^\x00-\x7f]/;
const wordPattern = /[\p{L}\p{N}_]+/gu;
const partPattern = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{L}+|\p{N}+/gu;

const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 200_000;

export function stem(word: string): string {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  // Porter is defined for English letters only; leave numbers and other scripts alone.
  const result = word.length > 2 && /^[a-z]+$/.test(word) ? stemmer(word) : word;
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(word, result);
  return result;
}

const enum CharClass {
  Other,
  Lower,
  Upper,
  Digit,
  Underscore,
}

function classOf(code: number): CharClass {
  if (code >= 97 && code <= 122) return CharClass.Lower;
  if (code >= 65 && code <= 90) return CharClass.Upper;
  if (code >= 48 && code <= 57) return CharClass.Digit;
  if (code === 95) return CharClass.Underscore;
  return CharClass.Other;
}

/** Splits an ASCII word into parts; equivalent to partPattern on ASCII input. */
function asciiParts(word: string, parts: string[]): void {
  const length = word.length;
  let index = 0;
  while (index < length) {
    const kind = classOf(word.charCodeAt(index));
    if (kind === CharClass.Underscore) {
      index++;
      continue;
    }
    let end = index + 1;
    if (kind === CharClass.Digit || kind === CharClass.Lower) {
      while (end < length && classOf(word.charCodeAt(end)) === kind) end++;
    } else {
      while (end < length && classOf(word.charCodeAt(end)) === CharClass.Upper) end++;
      if (end < length && classOf(word.charCodeAt(end)) === CharClass.Lower) {
        // "HTTPServer": the last capital starts the next part
        if (end - index > 1) {
          parts.push(word.slice(index, end - 1));
          index = end - 1;
        }
        while (end < length && classOf(word.charCodeAt(end)) === CharClass.Lower) end++;
      }
    }
    parts.push(word.slice(index, end));
    index = end;
  }
}

function emitWord(word: string, parts: string[], out: string[]): void {
  if (parts.length === 0) return;
  if (parts.length === 1) {
    const lower = (parts[0] as string).toLowerCase();
    if (lower.length <= MAX_TOKEN_LENGTH && !stopWords.has(lower)) out.push(stem(lower));
    return;
  }
  const whole = parts.join('').toLowerCase();
  if (whole.length <= MAX_TOKEN_LENGTH) out.push(whole);
  for (const part of parts) {
    const lower = part.toLowerCase();
    if (lower.length <= MAX_TOKEN_LENGTH && !stopWords.has(lower)) out.push(stem(lower));
  }
}

function tokenizeUnicode(text: string, out: string[]): void {
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '');
  for (const match of folded.matchAll(wordPattern)) {
    const word = match[0];
    if (word.length > MAX_WORD_LENGTH) continue;
    emitWord(word, word.match(partPattern) ?? [], out);
  }
}

/** Appends the tokens of `text` to `out` (avoids allocating per field on hot paths). */
export function tokenizeInto(text: string, out: string[]): string[] {
  if (nonAscii.test(text)) {
    tokenizeUnicode(text, out);
    return out;
  }
  const parts: string[] = [];
  const length = text.length;
  let index = 0;
  while (index < length) {
    while (index < length && classOf(text.charCodeAt(index)) === CharClass.Other) index++;
    const start = index;
    while (index < length && classOf(text.charCodeAt(index)) !== CharClass.Other) index++;
    if (index === start || index - start > MAX_WORD_LENGTH) continue;
    parts.length = 0;
    asciiParts(text.slice(start, index), parts);
    emitWord(text.slice(start, index), parts, out);
  }
  return out;
}

export function tokenize(text: string): string[] {
  return tokenizeInto(text, []);
}

/** Query terms: the tokens of the query, each once, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(tokenize(query))];
}
