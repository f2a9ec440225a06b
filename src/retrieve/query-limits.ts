import { LociError } from '../errors/index.js';
import { queryTerms } from '../lexical/tokenize.js';

/** Longest query accepted, in UTF-8 bytes: a pasted stack trace fits, a document does not. */
export const MAX_QUERY_BYTES = 16 * 1024;
/** Most distinct terms a query may have: each one is a posting-list lookup and a ranking feature. */
export const MAX_QUERY_TERMS = 512;

/**
 * Refuses a query whose size would make one call hold the engine for seconds (every door
 * passes untrusted queries here). Queries within the limits are untouched.
 */
export function checkQuerySize(query: string, what = 'search query'): void {
  // Characters never outnumber UTF-8 bytes, so the cheap test runs first.
  const bytes = query.length > MAX_QUERY_BYTES ? query.length : Buffer.byteLength(query, 'utf8');
  if (bytes > MAX_QUERY_BYTES) {
    throw new LociError('INVALID_ARGUMENT', `The ${what} is ${query.length > MAX_QUERY_BYTES ? 'at least ' : ''}${bytes} bytes; the limit is ${MAX_QUERY_BYTES}.`, {
      hint: 'Shorten the query to the words that matter (identifiers, an error line).',
    });
  }
}

export function checkQueryTerms(terms: readonly string[], what = 'search query'): void {
  if (terms.length > MAX_QUERY_TERMS) {
    // Terms, not words: an identifier or a word with digits is also searched by its parts (`w0` is w0, w and 0).
    throw new LociError('INVALID_ARGUMENT', `The ${what} has ${terms.length} distinct search terms (words and the parts of identifiers); the limit is ${MAX_QUERY_TERMS}.`, {
      hint: 'Shorten the query to the words that matter (identifiers, an error line).',
    });
  }
}

/** Both checks, for callers that have not tokenized the query yet. */
export function checkQuery(query: string, what = 'search query'): void {
  checkQuerySize(query, what);
  checkQueryTerms(queryTerms(query), what);
}
