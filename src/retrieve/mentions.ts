/**
 * Things a query names explicitly: identifiers (`parseConfig`, `user_service`, `Foo.bar`,
 * anything in backticks) and file names or paths (`sqlite-store.ts`, `src/store`). These
 * feed the mention signal: a chunk defining a named symbol, or in a named file, is boosted.
 */
export interface Mentions {
  symbols: string[];
  paths: string[];
}

const backticked = /`([^`]{2,120})`/g;
const pathLike = /(?:^|[\s("'])((?:[\w.-]+\/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?=$|[\s)"',:;?!])/g;
const identifierLike = /(?:^|[\s("'`])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?=$|[\s)"'`,:;?!(])/g;

function looksLikeIdentifier(word: string): boolean {
  // camelCase, PascalCase with an inner capital, snake_case, dotted member access
  return /[a-z][A-Z]/.test(word) || /[A-Za-z]_[A-Za-z]/.test(word) || /^[A-Z][a-z]+[A-Z]/.test(word) || /\w\.\w/.test(word);
}

export function extractMentions(query: string): Mentions {
  const symbols = new Set<string>();
  const paths = new Set<string>();
  for (const match of query.matchAll(backticked)) {
    const inner = (match[1] as string).trim().replace(/\(\)$/, '');
    if (/[/\\]|\.[a-z]{1,5}$/i.test(inner) && !/\s/.test(inner)) paths.add(inner);
    else if (/^[\w$.]+$/.test(inner)) symbols.add(inner);
  }
  for (const match of query.matchAll(pathLike)) {
    const candidate = match[1] as string;
    // "e.g" or version numbers are not files; require a plausible extension
    if (/\.(ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|cs|rb|php|c|h|cpp|hpp|md|json|yaml|yml|toml|sh|sql|css|html|vue|svelte|kt|swift)$/i.test(candidate)) paths.add(candidate);
  }
  for (const match of query.matchAll(identifierLike)) {
    const candidate = (match[1] as string).replace(/\.$/, '');
    if (!paths.has(candidate) && looksLikeIdentifier(candidate) && !/\.(ts|js|py|go|rs|md|json)$/i.test(candidate)) symbols.add(candidate);
  }
  return { symbols: [...symbols], paths: [...paths] };
}
