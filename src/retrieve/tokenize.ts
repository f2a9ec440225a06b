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

/** Where wanted terms sit in a text's token stream, and how long that stream is. */
export interface TermLocations {
  positions: Map<string, number[]>;
  length: number;
}

const MAX_STOP_WORD = Math.max(...[...stopWords].map((word) => word.length));
const lowerCode = (code: number): number => (code >= 65 && code <= 90 ? code + 32 : code);
/** A token's first two characters (lower-cased) as a number: the cheap test before stemming. */
const prefixOf = (first: number, second: number): number => first * 128 + second;

/** Like asciiParts, but as [start, end) offsets into `text` (no strings made). */
function asciiPartRanges(text: string, from: number, to: number, out: number[]): void {
  let index = from;
  while (index < to) {
    const kind = classOf(text.charCodeAt(index));
    if (kind === CharClass.Underscore) {
      index++;
      continue;
    }
    let end = index + 1;
    if (kind === CharClass.Digit || kind === CharClass.Lower) {
      while (end < to && classOf(text.charCodeAt(end)) === kind) end++;
    } else {
      while (end < to && classOf(text.charCodeAt(end)) === CharClass.Upper) end++;
      if (end < to && classOf(text.charCodeAt(end)) === CharClass.Lower) {
        if (end - index > 1) {
          out.push(index, end - 1);
          index = end - 1;
        }
        while (end < to && classOf(text.charCodeAt(end)) === CharClass.Lower) end++;
      }
    }
    out.push(index, end);
    index = end;
  }
}

/**
 * The positions `tokenize(text)` would give the wanted terms, and its token count, without
 * making or stemming tokens that cannot be one: Porter only rewrites endings, so a part
 * longer than three letters keeps its first two in its stem, and a part whose first two
 * letters start no wanted term is only counted (tokenize.test.ts checks both agree).
 */
export function locateTerms(text: string, wanted: ReadonlySet<string>): TermLocations {
  const positions = new Map<string, number[]>();
  const record = (token: string, position: number): void => {
    if (!wanted.has(token)) return;
    const list = positions.get(token);
    if (list) list.push(position);
    else positions.set(token, [position]);
  };
  if (nonAscii.test(text)) {
    const tokens = tokenize(text);
    tokens.forEach(record);
    return { positions, length: tokens.length };
  }
  const prefixes = new Set<number>();
  for (const term of wanted) prefixes.add(prefixOf(term.charCodeAt(0), term.length > 1 ? term.charCodeAt(1) : 0));
  let length = 0;
  const ranges: number[] = [];
  const total = text.length;
  let index = 0;
  while (index < total) {
    while (index < total && classOf(text.charCodeAt(index)) === CharClass.Other) index++;
    const start = index;
    while (index < total && classOf(text.charCodeAt(index)) !== CharClass.Other) index++;
    if (index === start || index - start > MAX_WORD_LENGTH) continue;
    ranges.length = 0;
    asciiPartRanges(text, start, index, ranges);
    if (ranges.length === 0) continue;
    if (ranges.length > 2) {
      // The whole identifier: the word without underscores, lower-cased, unstemmed.
      let letters = 0;
      let first = 0;
      let second = 0;
      for (let at = start; at < index; at++) {
        const code = text.charCodeAt(at);
        if (code === 95) continue;
        if (letters === 0) first = lowerCode(code);
        else if (letters === 1) second = lowerCode(code);
        letters++;
      }
      if (letters <= MAX_TOKEN_LENGTH) {
        if (prefixes.has(prefixOf(first, letters > 1 ? second : 0))) record(text.slice(start, index).replaceAll('_', '').toLowerCase(), length);
        length++;
      }
    }
    for (let part = 0; part < ranges.length; part += 2) {
      const from = ranges[part] as number;
      const to = ranges[part + 1] as number;
      const size = to - from;
      if (size > MAX_TOKEN_LENGTH) continue;
      let lower: string | undefined;
      if (size <= MAX_STOP_WORD) {
        lower = text.slice(from, to).toLowerCase();
        if (stopWords.has(lower)) continue;
      }
      const prefix = prefixOf(lowerCode(text.charCodeAt(from)), size > 1 ? lowerCode(text.charCodeAt(from + 1)) : 0);
      if (size <= 3 || prefixes.has(prefix)) record(stem(lower ?? text.slice(from, to).toLowerCase()), length);
      length++;
    }
  }
  return { positions, length };
}
