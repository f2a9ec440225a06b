import type { LexicalWeights } from '../store/spec.js';

/** Field weights for BM25: a term in a symbol name or heading counts more than in a body. */
export const defaultLexicalWeights: LexicalWeights = {
  path: 1.5,
  symbols: 2,
  heading: 1.5,
  body: 1,
};
