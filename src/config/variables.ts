import { meantKey } from '../errors/meant-key.js';
import { configVariableNames } from './load.js';
import type { LociConfig } from './schema.js';

/**
 * The LOCI_* variables read outside the config: secrets and settings of the doors, which the
 * adapter or command that needs them reads (never stored in config).
 */
export const LOCI_VARIABLES = [
  'LOCI_ALLOWED_HOSTS',
  'LOCI_CACHE_DIR',
  'LOCI_DEBUG',
  'LOCI_GIT_TOKEN',
  'LOCI_LLM_API_KEY',
  'LOCI_RERANK_API_KEY',
  'LOCI_RERANK_BASE_URL',
  'LOCI_RERANK_MODEL',
  'LOCI_STORE',
  'LOCI_TEST_POSTGRES_URL',
  'LOCI_TOKEN',
] as const;

export interface UnknownVariable {
  name: string;
  /** The variable it most likely misspells. */
  meant?: string;
}

/**
 * LOCI_* variables set in `env` that loci does not read: a misspelled one (LOCI_SEARCH_TOPK)
 * would otherwise be ignored without a word. A variable the config names as an API key's
 * (`embedderOptions.apiKeyEnv`) is read, so it is known.
 */
export function unknownVariables(env: Record<string, string | undefined>, config?: Pick<LociConfig, 'embedderOptions'>): UnknownVariable[] {
  const set = Object.keys(env).filter((name) => name.startsWith('LOCI_') && env[name] !== undefined);
  if (set.length === 0) return [];
  const known = [...configVariableNames(), ...LOCI_VARIABLES];
  if (config?.embedderOptions.apiKeyEnv) known.push(config.embedderOptions.apiKeyEnv);
  const knownSet = new Set(known);
  return set
    .filter((name) => !knownSet.has(name))
    .sort()
    .map((name) => {
      const meant = meantKey(name, known) ?? withWordsOf(name, known);
      return meant ? { name, meant } : { name };
    });
}

/** The one known name holding every word of `name` and one more (LOCI_LLM_API_KEY for LOCI_LLM_KEY). */
function withWordsOf(name: string, known: readonly string[]): string | undefined {
  const words = name.split('_');
  const holding = known.filter((candidate) => {
    const theirs = candidate.split('_');
    return theirs.length === words.length + 1 && words.every((word) => theirs.includes(word));
  });
  return holding.length === 1 ? holding[0] : undefined;
}

/** One line per unknown variable, for a command's stderr. */
export function describeUnknownVariable({ name, meant }: UnknownVariable): string {
  return `warning: ${name} is not a loci variable and is ignored${meant ? `; did you mean ${meant}?` : ' (README "Configuration" lists them)'}`;
}
