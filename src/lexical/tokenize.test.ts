import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { locateTerms, queryTerms, tokenize, tokenizeUnicode } from './tokenize.js';

describe('tokenize', () => {
  it('keeps identifiers whole and splits them into stemmed parts', () => {
    expect(tokenize('getUserNames')).toEqual(['getusernames', 'get', 'user', 'name']);
    expect(tokenize('get_user_name')).toEqual(['getusername', 'get', 'user', 'name']);
    expect(tokenize('HTTPServer2')).toEqual(['httpserver2', 'http', 'server', '2']);
  });

  it('stems prose and drops stop words', () => {
    expect(tokenize('How do I parse the running configs?')).toEqual(['pars', 'run', 'config']);
  });

  it('splits paths into words', () => {
    expect(tokenize('src/retrieve/tokenize.ts')).toEqual(['src', 'retriev', 'token', 'ts']);
  });

  it('keeps a stop word inside a whole identifier', () => {
    expect(tokenize('is_valid')).toEqual(['isvalid', 'valid']);
  });

  it('folds diacritics and skips blobs', () => {
    expect(tokenize('café Ünïcode')).toEqual(['cafe', 'unicod']);
    expect(tokenize('x'.repeat(200))).toEqual([]);
  });

  it('gives unique query terms in order', () => {
    expect(queryTerms('user user getUser')).toEqual(['user', 'getuser', 'get']);
  });
});

describe('fast tokenizer matches the regex reference', () => {
  it('on real source, prose and tricky identifiers', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { referenceTokenize } = await import('./test-support/reference-tokenizer.js');
    const samples = [
      'HTTPServer2 getURLForID __init__ snake_case_name SCREAMING_CASE x86_64 sha256sum iOS aB Ab ABc _private __dunder__',
      'The quick-brown fox; jumps over the LAZY dog (twice)! 3.14159 v2.0.1 e-mail',
      'café naïve Ünïcode 東京タワー Привет мир',
      `${'a'.repeat(97)} ok ${'b'.repeat(96)}`,
    ];
    const folder = new URL('.', import.meta.url).pathname;
    for (const name of readdirSync(folder)) if (name.endsWith('.ts')) samples.push(readFileSync(join(folder, name), 'utf8'));
    for (const text of samples) expect(tokenize(text)).toEqual(referenceTokenize(text));
  });

  it('locates terms exactly where tokenize puts them, stemming only what can match', () => {
    // Real text: this repository's sources and docs, and awkward words for the stemmer.
    const folder = join(import.meta.dirname, '..');
    const texts = readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .slice(0, 60)
      .map((name) => readFileSync(join(folder, name), 'utf8'));
    texts.push('ies dies flies sky say relational conflated hopping HTTPServer2 getUserNames café naïve Ünïcode is_valid');
    texts.push('“Quoted” text – with dashes… and ™ symbols, ﬁle ligatures, naïve cafés; 5 µm of TNF-α');
    texts.push('plain “curly quotes” and — dashes ≥ symbols only, ready_to_go getUser’s');
    let checked = 0;
    for (const text of texts) {
      const tokens = tokenize(text);
      // Wanted terms: a sample of the text's own tokens plus some it lacks.
      const wanted = new Set([...tokens.filter((_, index) => index % 7 === 0), 'zzzz', 'i', 'fli', 'conflat']);
      const located = locateTerms(text, wanted);
      expect(located.length).toBe(tokens.length);
      const expected = new Map<string, number[]>();
      tokens.forEach((token, position) => {
        if (wanted.has(token)) expected.set(token, [...(expected.get(token) ?? []), position]);
      });
      expect(located.positions).toEqual(expected);
      checked += tokens.length;
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it("holds the locator's stemming claims on short stems with each of Porter's suffixes", () => {
    // Stems of one to three letters (all of one and two, and three made of letters the rules
    // turn on) with every suffix Porter rewrites, and some of them stacked.
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const some = 'aeiouyblstz';
    const heads = [...letters];
    for (const a of letters) for (const b of letters) heads.push(a + b);
    for (const a of some) for (const b of some) for (const c of some) heads.push(a + b + c);
    const suffixes = [
      '',
      's',
      'es',
      'ies',
      'sses',
      'ss',
      'ed',
      'eed',
      'ing',
      'ings',
      'ied',
      'y',
      'ys',
      'e',
      'le',
      'ational',
      'tional',
      'ization',
      'ation',
      'ations',
      'ator',
      'alism',
      'iveness',
      'fulness',
      'ousness',
      'aliti',
      'iviti',
      'biliti',
      'logi',
      'enci',
      'anci',
      'izer',
      'bli',
      'alli',
      'entli',
      'eli',
      'ousli',
      'icate',
      'ative',
      'alize',
      'iciti',
      'ical',
      'ful',
      'ness',
      'al',
      'ance',
      'ence',
      'er',
      'ic',
      'able',
      'ible',
      'ant',
      'ement',
      'ment',
      'ent',
      'ion',
      'sion',
      'tion',
      'ou',
      'ism',
      'ate',
      'iti',
      'ous',
      'ive',
      'ize',
      'll',
      'ated',
      'izing',
      'ating',
      'bled',
      'bling',
      'ized',
      'yed',
      'ying',
      'ly',
      'fully',
      'ingly',
      'edly',
    ];
    const broken: string[] = [];
    for (const head of heads) {
      for (const suffix of suffixes) {
        const word = head + suffix;
        const [stemmed] = tokenize(word);
        if (stemmed === undefined || word.length > 48) continue;
        const claim =
          word.length <= 3
            ? stemmed.length <= 3 && stemmed[0] === word[0]
            : stemmed.length >= 4
              ? stemmed.slice(0, 3) === word.slice(0, 3)
              : stemmed.slice(0, 2) === word.slice(0, 2) || stemmed === word[0] || (stemmed === `${word[0]}i` && word[1] === 'y');
        if (!claim) broken.push(`${word} → ${stemmed}`);
      }
    }
    expect(broken).toEqual([]);
    // The exceptions to "its first two letters" are found.
    const text = 'eying aing ayed ties hopping relational';
    const wanted = new Set(['ei', 'a', 'ai', 'ti', 'hop', 'relat']);
    const expected = new Map<string, number[]>();
    tokenize(text).forEach((token, position) => wanted.has(token) && expected.set(token, [...(expected.get(token) ?? []), position]));
    expect(expected.size).toBe(6);
    expect(locateTerms(text, wanted).positions).toEqual(expected);
  });

  it('folds a text with other characters piece by piece to the same tokens as folding it whole', () => {
    const texts = [
      'café naïve Ünïcode ﬁle ligatures, “quotes” – dashes… ™ symbols fooBar™baz Foo™',
      '!\u0301accent after a separator, e\u0301 decomposed, \u00a0nbsp\u00a0between words, ＡＢＣ fullwidth Ｆｏｏ＿ｂａｒ',
      'x\u0301\u0327y stacked marks, ①②③ circled numbers, ½ fractions, µm, TNF-α, 中文 tokens, 😀 emoji_name😀x',
      `${'a'.repeat(90)}é${'b'.repeat(10)} long words with accents, ${'ß'.repeat(100)} and getUser’s ready_to_go HTTPServer2`,
      '\u0301leading mark, trailing mark e\u0301',
    ];
    const folder = join(import.meta.dirname, '..');
    for (const name of readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md') || file.endsWith('.ts'))) {
      const text = readFileSync(join(folder, name), 'utf8');
      if (/[^\x00-\x7f]/.test(text)) texts.push(text);
    }
    expect(texts.length).toBeGreaterThan(8);
    for (const text of texts) {
      const whole: string[] = [];
      tokenizeUnicode(text, whole);
      expect(tokenize(text)).toEqual(whole);
      const wanted = new Set([...whole.filter((_, index) => index % 5 === 0), 'file', 'cafe']);
      const located = locateTerms(text, wanted);
      expect(located.length).toBe(whole.length);
    }
  });
});
