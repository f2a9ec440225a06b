/**
 * A programming language named in a query ("python read csv", "sort a map in golang") says
 * which code is wanted, not what the code is about: as a BM25 term it would favour chunks
 * that mention the language's name ("Return a Python date …") over the function asked for.
 * When the index holds code in that language and the query has other words, the name is
 * taken out of the lexical terms and the embedded text and becomes a ranking feature
 * (`languageMatch`) instead.
 */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['python', 'python'],
  ['python3', 'python'],
  ['py', 'python'],
  ['javascript', 'javascript'],
  ['js', 'javascript'],
  ['nodejs', 'javascript'],
  ['typescript', 'typescript'],
  ['ts', 'typescript'],
  ['java', 'java'],
  ['golang', 'go'],
  ['rust', 'rust'],
  ['ruby', 'ruby'],
  ['php', 'php'],
  ['kotlin', 'kotlin'],
  ['swift', 'swift'],
  ['scala', 'scala'],
  ['csharp', 'csharp'],
  ['cpp', 'cpp'],
  ['lua', 'lua'],
  ['bash', 'bash'],
]);

/** Languages that count as the same code for a hint (TypeScript users accept TSX, …). */
const FAMILY: ReadonlyMap<string, readonly string[]> = new Map([
  ['typescript', ['typescript', 'tsx']],
  ['javascript', ['javascript', 'typescript', 'tsx']],
]);

export interface LanguageHints {
  /** Query terms left for lexical search. */
  terms: string[];
  /** Index languages the query asked for (empty when none). */
  languages: string[];
  /** The query text for the embedder, without the language names. */
  text: string;
}

/**
 * Splits language names off the query terms. `present` is the set of languages the index
 * holds; a name is only a hint when code in that language is there to be preferred, and
 * only when at least one other term remains (a query that is just "python" searches for it).
 */
export function languageHints(query: string, terms: readonly string[], present: ReadonlySet<string>): LanguageHints {
  const hinted = new Set<string>();
  const hintTerms = new Set<string>();
  for (const term of terms) {
    const language = ALIASES.get(term);
    if (!language) continue;
    const wanted = (FAMILY.get(language) ?? [language]).filter((name) => present.has(name));
    if (wanted.length === 0) continue;
    hintTerms.add(term);
    for (const name of wanted) hinted.add(name);
  }
  const rest = terms.filter((term) => !hintTerms.has(term));
  if (hintTerms.size === 0 || rest.length === 0) return { terms: [...terms], languages: [], text: query };
  const text = query
    .replace(/[\p{L}\p{N}_]+/gu, (word) => (hintTerms.has(word.toLowerCase()) ? ' ' : word))
    .replace(/\s+/g, ' ')
    .trim();
  return { terms: rest, languages: [...hinted], text: text === '' ? query : text };
}
