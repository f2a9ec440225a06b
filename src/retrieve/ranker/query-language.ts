/**
 * A programming language named in a query ("python read csv", "sort a map in golang") says
 * which code is wanted, not what the code is about: as a BM25 term it would favour chunks
 * that mention the language's name ("Return a Python date …") over the function asked for.
 * When a real share of the index is code in that language and the query has other words,
 * the name is taken out of the lexical terms and the embedded text and becomes a ranking
 * feature (`languageMatch`) instead.
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
 * The share of the index's chunks a named language (with its family) must hold to be a hint.
 * Below it, the name is more likely the subject than the code wanted: in a Python library
 * with one shell script, "shell completion for bash" asks about bash completion, and taking
 * "bash" out of the terms would rank `BashComplete` below `PowerShellComplete`. A minor
 * language's files are still found by the name itself (a shebang says `bash`).
 */
export const MIN_HINT_SHARE = 0.05;

/**
 * Splits language names off the query terms. `present` holds the index's languages and
 * their chunk counts; a name is only a hint when code in that language is a real share of
 * the index (MIN_HINT_SHARE), and only when at least one other term remains (a query that is
 * just "python" searches for it).
 */
export function languageHints(query: string, terms: readonly string[], present: ReadonlyMap<string, number>): LanguageHints {
  let total = 0;
  for (const chunks of present.values()) total += chunks;
  const hinted = new Set<string>();
  const hintTerms = new Set<string>();
  for (const term of terms) {
    const language = ALIASES.get(term);
    if (!language) continue;
    const wanted = (FAMILY.get(language) ?? [language]).filter((name) => (present.get(name) ?? 0) > 0);
    const chunks = wanted.reduce((sum, name) => sum + (present.get(name) as number), 0);
    if (wanted.length === 0 || chunks < MIN_HINT_SHARE * total) continue;
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
