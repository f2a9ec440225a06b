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
// A word of MAX_WORD_LENGTH characters has at most that many parts, two offsets each.
const PART_RANGES = new Int32Array(MAX_WORD_LENGTH * 2 + 2);
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

// Character classes of ASCII codes (anything from 128 up is OTHER).
const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const UNDERSCORE = 4;
const CLASSES = new Uint8Array(128);
CLASSES.fill(LOWER, 97, 123);
CLASSES.fill(UPPER, 65, 91);
CLASSES.fill(DIGIT, 48, 58);
CLASSES[95] = UNDERSCORE;

function classOf(code: number): number {
  return code < 128 ? (CLASSES[code] as number) : OTHER;
}

/** Splits an ASCII word into parts; equivalent to partPattern on ASCII input. */
function asciiParts(word: string, parts: string[]): void {
  const offsets = asciiPartRanges(word, 0, word.length, PART_RANGES);
  for (let part = 0; part < offsets; part += 2) parts.push(word.slice(PART_RANGES[part], PART_RANGES[part + 1]));
}

function emitWord(_word: string, parts: string[], out: string[]): void {
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

/** Tokens of the text folded whole (NFKD, marks removed) and split by Unicode classes: what tokenize gives piece by piece (tests check they agree). */
export function tokenizeUnicode(text: string, out: string[]): void {
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '');
  for (const match of folded.matchAll(wordPattern)) {
    const word = match[0];
    if (word.length > MAX_WORD_LENGTH) continue;
    emitWord(word, word.match(partPattern) ?? [], out);
  }
}

/** Appends the tokens of `text` to `out` (avoids allocating per field on hot paths). */
export function tokenizeInto(text: string, out: string[]): string[] {
  const parts: string[] = [];
  const ascii = (start: number, end: number): void => {
    const word = text.slice(start, end);
    parts.length = 0;
    asciiParts(word, parts);
    emitWord(word, parts, out);
  };
  if (!nonAscii.test(text)) forEachAsciiWord(text, ascii);
  else forEachPiece(text, ascii, (piece) => tokenizeUnicode(piece, out));
  return out;
}

/**
 * The text cut at its ASCII non-word characters (which folding leaves as they are and never
 * joins to a word): an ASCII piece is one word, short enough to index, given as [start,
 * end); a piece holding other characters is given whole, to be folded and split alone.
 * Folding (NFKD, marks removed) piece by piece equals folding the whole text: NFKD only
 * reorders combining marks, never across a character of class 0 such as these.
 */
function forEachPiece(text: string, ascii: (start: number, end: number) => void, other: (piece: string) => void): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    let code = text.charCodeAt(index);
    while (code < 128 && classOf(code) === OTHER) {
      if (++index >= length) return;
      code = text.charCodeAt(index);
    }
    const start = index;
    let wide = false;
    while (index < length) {
      code = text.charCodeAt(index);
      if (code >= 128) wide = true;
      else if (classOf(code) === OTHER) break;
      index++;
    }
    if (wide) other(text.slice(start, index));
    else if (index - start <= MAX_WORD_LENGTH) ascii(start, index);
  }
}

/** Calls `visit` with the [start, end) of each ASCII word (letters, digits, `_`) short enough to index. */
function forEachAsciiWord(text: string, visit: (start: number, end: number) => void): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    while (index < length && classOf(text.charCodeAt(index)) === OTHER) index++;
    const start = index;
    while (index < length && classOf(text.charCodeAt(index)) !== OTHER) index++;
    if (index === start || index - start > MAX_WORD_LENGTH) continue;
    visit(start, index);
  }
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
/** A short all-letter word packed 5 bits a letter (exact for ≤ 6 letters), or -1. */
function packWord(text: string, from: number, to: number): number {
  let key = 0;
  for (let at = to - 1; at >= from; at--) {
    const code = text.charCodeAt(at) | 32; // lower-cases A-Z; other bytes fail the range test
    if (code < 97 || code > 122) return -1;
    key = key * 32 + (code - 96);
  }
  return key;
}
const STOP_KEYS = new Set([...stopWords].filter((word) => word.length <= MAX_STOP_WORD).map((word) => packWord(word, 0, word.length)));
/** Which (first letter, length) pairs a stop word has: only parts of such a shape are looked up. */
const STOP_SHAPES = new Uint8Array(128 * (MAX_STOP_WORD + 1));
for (const word of stopWords) if (word.charCodeAt(0) < 128) STOP_SHAPES[word.charCodeAt(0) * (MAX_STOP_WORD + 1) + word.length] = 1;
const lowerCode = (code: number): number => (code >= 65 && code <= 90 ? code + 32 : code);
/** A token's first two characters (lower-cased) as a number: the cheap test before stemming. */
const prefixOf = (first: number, second: number): number => first * 128 + second;

/**
 * Splits the ASCII word text[from, to) into parts, as [start, end) offsets (no strings made):
 * runs of lower case, of digits, or capitals (the last capital before lower case starts the
 * next part: "HTTPServer" → HTTP, Server); underscores separate. Returns the offset count.
 */
function asciiPartRanges(text: string, from: number, to: number, out: Int32Array): number {
  let count = 0;
  let index = from;
  while (index < to) {
    const kind = classOf(text.charCodeAt(index));
    if (kind === UNDERSCORE) {
      index++;
      continue;
    }
    let end = index + 1;
    if (kind === DIGIT || kind === LOWER) {
      while (end < to && classOf(text.charCodeAt(end)) === kind) end++;
    } else {
      while (end < to && classOf(text.charCodeAt(end)) === UPPER) end++;
      if (end < to && classOf(text.charCodeAt(end)) === LOWER) {
        if (end - index > 1) {
          out[count++] = index;
          out[count++] = end - 1;
          index = end - 1;
        }
        while (end < to && classOf(text.charCodeAt(end)) === LOWER) end++;
      }
    }
    out[count++] = index;
    out[count++] = end;
    index = end;
  }
  return count;
}

/**
 * The positions `tokenize(text)` would give the wanted terms, and its token count, without
 * making or stemming tokens that cannot be one. Porter only rewrites endings: a stem of four
 * letters or more starts with its word's first three; a shorter stem of a longer word starts
 * with its first two, or is its first letter alone, or that letter and `i` for a second `y`;
 * a word of three letters or fewer stems to as many or fewer, its first letter kept. A part
 * whose first letters start no wanted term of a length it could stem to is only counted
 * (tokenize.test.ts checks both agree on real text, and these claims on short stems with
 * each of Porter's suffixes).
 */
export function locateTerms(text: string, wanted: ReadonlySet<string>): TermLocations {
  return termLocator(wanted)(text);
}

/** Bits of `termLocator`'s prefix table: a wanted term of at most three letters starts with these two letters; a longer one does. */
const SHORT_TERM = 1;
const LONG_TERM = 2;

/** locateTerms for many texts and one set of wanted terms: the lookup tables are built once. */
export function termLocator(wanted: ReadonlySet<string>): (text: string) => TermLocations {
  // First two letters of the wanted terms (the first letter of short ones), as bitmaps over
  // ASCII codes, and the third letters of the longer ones under their first two.
  const prefixes = new Uint8Array(128 * 128);
  const initials = new Uint8Array(128);
  const thirds = new Map<number, Uint8Array>();
  for (const term of wanted) {
    const first = term.charCodeAt(0);
    const second = term.length > 1 ? term.charCodeAt(1) : 0;
    const third = term.length > 3 ? term.charCodeAt(2) : 0;
    if (first >= 128 || second >= 128 || third >= 128) continue; // cannot come out of the ASCII scan
    const prefix = prefixOf(first, second);
    if (term.length <= 3) {
      prefixes[prefix] = (prefixes[prefix] as number) | SHORT_TERM;
      initials[first] = 1;
      // Porter can leave a longer word its first letter alone (`aing` → `a`) or turn its second, `y`, into `i` (`eyed` → `ei`).
      if (term.length === 1) for (let next = 0; next < 128; next++) prefixes[prefixOf(first, next)] = (prefixes[prefixOf(first, next)] as number) | SHORT_TERM;
      if (term.length === 2 && second === 105) prefixes[prefixOf(first, 121)] = (prefixes[prefixOf(first, 121)] as number) | SHORT_TERM;
      continue;
    }
    prefixes[prefix] = (prefixes[prefix] as number) | LONG_TERM;
    let letters = thirds.get(prefix);
    if (!letters) thirds.set(prefix, (letters = new Uint8Array(128)));
    letters[third] = 1;
  }
  // Whether a token of four letters or more (or a whole identifier) with these first letters may be a wanted term.
  const mayBeWanted = (first: number, second: number, third: number): boolean => {
    const prefix = prefixOf(first, second);
    const kinds = prefixes[prefix] as number;
    return (kinds & SHORT_TERM) !== 0 || ((kinds & LONG_TERM) !== 0 && (thirds.get(prefix) as Uint8Array)[third] === 1);
  };
  const ranges = new Int32Array(PART_RANGES.length);
  return (source) => {
    const positions = new Map<string, number[]>();
    let length = 0;
    const record = (token: string, position: number): void => {
      if (!wanted.has(token)) return;
      const list = positions.get(token);
      if (list) list.push(position);
      else positions.set(token, [position]);
    };
    // One ASCII word [start, end) of `text`: its tokens are counted, and made (and stemmed)
    // only when their first letters start a wanted term.
    const asciiWord = (text: string, start: number, end: number): void => {
      const offsets = asciiPartRanges(text, start, end, ranges);
      if (offsets === 0) return;
      if (offsets > 2) {
        // The whole identifier: the word without underscores, lower-cased, unstemmed.
        let letters = 0;
        let first = 0;
        let second = 0;
        let third = 0;
        for (let at = start; at < end; at++) {
          const code = text.charCodeAt(at);
          if (code === 95) continue;
          if (letters === 0) first = lowerCode(code);
          else if (letters === 1) second = lowerCode(code);
          else if (letters === 2) third = lowerCode(code);
          letters++;
        }
        if (letters <= MAX_TOKEN_LENGTH) {
          // Unstemmed: it can only be a term of its own length.
          if (letters <= 3 ? (prefixes[prefixOf(first, second)] as number) & SHORT_TERM : mayBeWanted(first, second, third)) record(text.slice(start, end).replaceAll('_', '').toLowerCase(), length);
          length++;
        }
      }
      for (let part = 0; part < offsets; part += 2) asciiPart(text, ranges[part] as number, ranges[part + 1] as number);
    };
    // One part [from, to) of an ASCII word: counted unless a stop word, made and stemmed only when its first letters may start a wanted term.
    const asciiPart = (text: string, from: number, to: number): void => {
      const size = to - from;
      if (size > MAX_TOKEN_LENGTH) return;
      const first = lowerCode(text.charCodeAt(from));
      if (size <= MAX_STOP_WORD && STOP_SHAPES[first * (MAX_STOP_WORD + 1) + size] === 1 && STOP_KEYS.has(packWord(text, from, to))) return;
      // Short words may lose letters to Porter (`ied` → `i`) but never their first one.
      if (size <= 3 ? initials[first] === 1 : mayBeWanted(first, lowerCode(text.charCodeAt(from + 1)), lowerCode(text.charCodeAt(from + 2)))) record(stem(text.slice(from, to).toLowerCase()), length);
      length++;
    };
    // A piece holding characters from 128 up (between ASCII non-word characters, as
    // forEachPiece cuts them): its words as tokenizeUnicode finds them once folded, the ASCII
    // ones through the fast path, the others tokenized whole.
    const tokens: string[] = [];
    const widePiece = (piece: string): void => {
      const folded = piece.normalize('NFKD').replace(/\p{M}+/gu, '');
      for (const match of folded.matchAll(wordPattern)) {
        const word = match[0];
        if (word.length > MAX_WORD_LENGTH) continue;
        if (!nonAscii.test(word)) {
          asciiWord(folded, match.index, match.index + word.length);
          continue;
        }
        tokens.length = 0;
        emitWord(word, word.match(partPattern) ?? [], tokens);
        for (const token of tokens) record(token, length++);
      }
    };
    // forEachPiece inlined (this runs over every candidate's text at every ranked search, and
    // nearly every piece is ASCII: one pass, no test of the whole text first), and an ASCII
    // word of one part (lower case, digits, capitals, or one capital then lower case: most
    // words) taken as it is, without splitting it.
    const size = source.length;
    let index = 0;
    while (index < size) {
      let code = source.charCodeAt(index);
      while (code < 128 && CLASSES[code] === OTHER) {
        if (++index >= size) return { positions, length };
        code = source.charCodeAt(index);
      }
      const start = index++;
      let wide = code >= 128;
      const head = wide ? OTHER : (CLASSES[code] as number);
      let single = head !== UNDERSCORE;
      let tail = head === UPPER ? OTHER : head; // after one capital: undecided
      while (index < size) {
        code = source.charCodeAt(index);
        if (code >= 128) wide = true;
        else {
          const kind = CLASSES[code] as number;
          if (kind === OTHER) break;
          if (single && kind !== tail) {
            if (tail === OTHER && kind !== DIGIT && kind !== UNDERSCORE) tail = kind;
            else single = false;
          }
        }
        index++;
      }
      if (wide) widePiece(source.slice(start, index));
      else if (index - start > MAX_WORD_LENGTH) continue;
      else if (single) asciiPart(source, start, index);
      else asciiWord(source, start, index);
    }
    return { positions, length };
  };
}
