import { describe, expect, it } from 'vitest';
import { isLociError } from '../errors/index.js';
import { checkQuery, MAX_QUERY_BYTES, MAX_QUERY_TERMS } from './query-limits.js';
import { queryTerms } from '../lexical/tokenize.js';

const letters = (value: number): string => (value < 26 ? '' : letters(Math.floor(value / 26) - 1)) + String.fromCharCode(97 + (value % 26));
/** A query of exactly `count` distinct terms (as the tokenizer counts them). */
const words = (count: number): string => {
  const out: string[] = [];
  for (let index = 0; queryTerms(out.join(' ')).length < count; index++) out.push(`zq${letters(index)}`);
  return out.join(' ');
};
const refusal = (query: string): string | undefined => {
  try {
    checkQuery(query);
    return undefined;
  } catch (error) {
    if (!isLociError(error) || error.code !== 'INVALID_ARGUMENT') throw error;
    return error.message;
  }
};

describe('checkQuery', () => {
  it('leaves normal queries alone, a pasted stack trace included', () => {
    expect(refusal('how are refunds charged')).toBeUndefined();
    const trace = Array.from({ length: 40 }, (_, line) => `    at handler${line} (src/app/server-${line}.ts:${line + 10}:7)`).join('\n');
    expect(refusal(`TypeError: x is undefined\n${trace}`)).toBeUndefined();
    expect(queryTerms(words(MAX_QUERY_TERMS))).toHaveLength(MAX_QUERY_TERMS);
    expect(refusal(words(MAX_QUERY_TERMS))).toBeUndefined();
  });

  it('refuses too many bytes or too many distinct terms, fast', () => {
    const started = performance.now();
    expect(refusal('x '.repeat(500_000))).toMatch(new RegExp(`limit is ${MAX_QUERY_BYTES}`));
    expect(refusal('é'.repeat(MAX_QUERY_BYTES / 2 + 1))).toMatch(/bytes/);
    expect(refusal(words(MAX_QUERY_TERMS + 1))).toMatch(new RegExp(`limit is ${MAX_QUERY_TERMS}`));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
