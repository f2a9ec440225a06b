/** Provider names an embedder spec may start with (`docker:ai/mxbai-embed-large`). */
const PROVIDER_PREFIX = /^(none|static|transformers|openai|ollama|docker|lmstudio|openai-compatible|vertex|gemini|voyage)(:|$)/;

/**
 * The seed agents' own environment variables, accepted as documented aliases so an agent's
 * existing setup works unchanged. Each maps to one config key; loci's own names (config
 * files, LOCI_* variables, flags, a trusted folder config) all win over an alias.
 */
export const seedAliases: ReadonlyArray<{ variable: string; path: string[]; of: string; parse: (text: string) => unknown }> = [
  // The Go boss agent: `EMBEDDING_MODEL=ai/mxbai-embed-large:latest`, served by Docker Model Runner.
  { variable: 'EMBEDDING_MODEL', path: ['embedder'], of: 'LOCI_EMBEDDER', parse: (text) => (PROVIDER_PREFIX.test(text) ? text : `docker:${text}`) },
  { variable: 'SIMILARITY_LIMIT', path: ['memory', 'knowledgeThreshold'], of: 'LOCI_MEMORY_KNOWLEDGE_THRESHOLD', parse: numberOrText },
  { variable: 'SIMILARITY_MAX_RESULTS', path: ['memory', 'knowledgeTopK'], of: 'LOCI_MEMORY_KNOWLEDGE_TOP_K', parse: numberOrText },
];

/** The lowest trusted layer: values from the seed agents' variable names that are set. */
export function seedAliasLayer(env: Record<string, string | undefined>): { origin: string; values: Record<string, unknown>; originOfPath: Map<string, string> } {
  const values: Record<string, unknown> = {};
  const originOfPath = new Map<string, string>();
  for (const alias of seedAliases) {
    const text = env[alias.variable]?.trim();
    if (!text) continue;
    let target = values;
    for (const key of alias.path.slice(0, -1)) {
      const child = (target[key] as Record<string, unknown> | undefined) ?? {};
      target[key] = child;
      target = child;
    }
    target[alias.path[alias.path.length - 1] as string] = alias.parse(text);
    originOfPath.set(alias.path.join('.'), `${alias.variable} (alias of ${alias.of})`);
  }
  return { origin: 'seed agent variables', values, originOfPath };
}

function numberOrText(text: string): unknown {
  const value = Number(text);
  return Number.isFinite(value) ? value : text; // bad text is left for zod to report, with its origin
}
