import { countTerms, type ChunkTermStats } from './codec.js';
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

/** Tokenizes each field once, giving both the FTS5 row and the term statistics. */
export function lexicalFieldsOf(source: LexicalSource): { lexical: LexicalFields; termStats: ChunkTermStats } {
  const tokens = {
    path: tokenize(source.path),
    symbols: tokenize(source.symbols),
    heading: tokenize(source.heading),
    body: tokenize(source.body),
  };
  return {
    lexical: { path: tokens.path.join(' '), symbols: tokens.symbols.join(' '), heading: tokens.heading.join(' '), body: tokens.body.join(' ') },
    termStats: countTerms(tokens),
  };
}
