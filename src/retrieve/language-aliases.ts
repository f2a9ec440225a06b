import { LociError } from '../errors/index.js';
import { meantChoice } from '../errors/meant-key.js';
import { knownLanguages } from '../sources/language.js';

/**
 * What people type for a language, mapped to the ids loci stores (sources/language.ts). A
 * family name includes its dialects: `typescript` is .ts and .tsx, `javascript` is
 * .js/.jsx/.mjs/.cjs (all stored as `javascript`).
 */
const aliases: Record<string, readonly string[]> = {
  ts: ['typescript', 'tsx'],
  typescript: ['typescript', 'tsx'],
  mts: ['typescript'],
  cts: ['typescript'],
  tsx: ['tsx'],
  js: ['javascript'],
  jsx: ['javascript'],
  mjs: ['javascript'],
  cjs: ['javascript'],
  javascript: ['javascript'],
  node: ['javascript', 'typescript', 'tsx'],
  py: ['python'],
  python3: ['python'],
  rs: ['rust'],
  golang: ['go'],
  cs: ['csharp'],
  'c#': ['csharp'],
  'c-sharp': ['csharp'],
  dotnet: ['csharp'],
  'c++': ['cpp'],
  cxx: ['cpp'],
  cc: ['cpp'],
  hpp: ['cpp'],
  h: ['c', 'cpp'],
  rb: ['ruby'],
  sh: ['bash'],
  shell: ['bash'],
  zsh: ['bash'],
  md: ['markdown'],
  mdx: ['markdown'],
  yml: ['yaml'],
  kt: ['kotlin'],
  kts: ['kotlin'],
  ex: ['elixir'],
  exs: ['elixir'],
  hs: ['haskell'],
  rst: ['restructuredtext'],
  txt: ['text'],
  tf: ['hcl'],
  terraform: ['hcl'],
  proto: ['protobuf'],
  gql: ['graphql'],
};

/** The stored language ids a user's language names select (duplicates removed). */
export function expandLanguages(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of names) {
    const name = raw.trim().toLowerCase().replace(/^\./, '');
    if (!name) continue;
    for (const id of aliases[name] ?? [name]) out.add(id);
  }
  return [...out];
}

/** Every alias, for error messages. */
export function languageAliasNames(): string[] {
  return Object.keys(aliases).sort();
}

/**
 * Every language name a caller typed must select a language loci knows or the index holds: a
 * filter that silently matches nothing, or silently drops one of its names, is a mistake the
 * caller should hear about.
 */
export function checkLanguageNames(typed: readonly string[], indexed: readonly string[]): void {
  const present = new Set([...knownLanguages(), ...indexed]);
  const unknown = typed.filter((name) => name.trim() !== '' && !expandLanguages([name]).some((id) => present.has(id)));
  if (unknown.length === 0) return;
  const choices = [...present, ...languageAliasNames()];
  const meant = unknown.length === 1 ? meantChoice(unknown[0] as string, choices) : '';
  throw new LociError('INVALID_ARGUMENT', `Unknown language ${unknown.map((name) => `"${name}"`).join(', ')}.${meant}`, {
    hint: `Use a language id (${[...new Set([...indexed, 'typescript', 'python', 'go', 'rust'])].slice(0, 12).join(', ')}, …) or an alias (${languageAliasNames().slice(0, 10).join(', ')}, …).`,
    details: { languages: unknown },
  });
}
