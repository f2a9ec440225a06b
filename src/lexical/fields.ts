import { countTerms, type ChunkTermStats, type TermTable } from './codec.js';
import { tokenize } from './tokenize.js';

/** Each field's tokens joined by spaces: the form the lexical index stores. */
export interface LexicalFields {
  path: string;
  symbols: string;
  heading: string;
  body: string;
}

/** The raw text of each lexical field of a chunk. */
export interface LexicalSource {
  path: string;
  symbols: string;
  heading: string;
  body: string;
}

/** Each field's tokens (tokenize.ts). */
export type FieldTokens = Record<keyof LexicalSource, string[]>;

/** Tokenizes each field once. */
export function fieldTokensOf(source: LexicalSource): FieldTokens {
  return { path: tokenize(source.path), symbols: tokenize(source.symbols), heading: tokenize(source.heading), body: tokenize(source.body) };
}

/**
 * The stored lexical form of tokenized fields: the joined fields and the term statistics,
 * counted into `table` (an indexing run's shared one) or a list of their own.
 */
export function lexicalFieldsFrom(tokens: FieldTokens, table?: TermTable): { lexical: LexicalFields; termStats: ChunkTermStats } {
  return {
    lexical: { path: tokens.path.join(' '), symbols: tokens.symbols.join(' '), heading: tokens.heading.join(' '), body: tokens.body.join(' ') },
    termStats: table ? table.count(tokens) : countTerms(tokens),
  };
}

/** Tokenizes each field once, giving the stored lexical form and the term statistics. */
export function lexicalFieldsOf(source: LexicalSource): { lexical: LexicalFields; termStats: ChunkTermStats } {
  return lexicalFieldsFrom(fieldTokensOf(source));
}
