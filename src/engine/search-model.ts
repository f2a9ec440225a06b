import type { LociConfig } from '../config/schema.js';
import { resolveEmbedder } from '../embed/registry.js';
import { embedderIdOf, type EmbeddingModel } from '../embed/spec.js';
import { LociError } from '../errors/index.js';
import type { Store } from '../store/spec.js';

import { EMBEDDER_SPEC_STATE } from '../indexing/run-state.js';

/**
 * A store usually lives inside the folder (`.loci/`), so the embedder spec it records is
 * folder content: it may name a remote provider or a model path only when the caller's own
 * config names the same spec. Local servers get their URL and key from the caller's config.
 */
function storedSpecUsable(spec: string, configured: string): boolean {
  if (spec === configured || spec === 'none' || spec === 'static' || spec === 'static:loci-static-v1') return true;
  return /^(ollama|docker|lmstudio|openai-compatible):/.test(spec);
}

/** Rebuilds the embedder an index was built with, for queries, if the caller's config allows it. */
export async function recordedSearchModel(
  store: Store,
  embedderId: string,
  configured: string,
  context: { config: LociConfig; env: Record<string, string | undefined> },
): Promise<{ spec: string; model: EmbeddingModel }> {
  const spec = (await store.readState(EMBEDDER_SPEC_STATE)) ?? 'none';
  if (!storedSpecUsable(spec, configured)) {
    throw new LociError('CONFIG_UNTRUSTED', `The index records the embedder "${spec}", which your own config does not name; it would send your queries off this machine or load a model from a path.`, {
      hint: `If you built this index, name the embedder in your own config: LOCI_EMBEDDER=${spec}, "embedder" in your user config, or loci trust for the folder's config. Otherwise re-index with loci index.`,
      details: { spec, configured },
    });
  }
  // The recorded id lends its size: recreating the model needs no request to it.
  const model = await resolveEmbedder(spec, { ...context, recordedEmbedderId: embedderId });
  if (!model || embedderIdOf(model) !== embedderId) {
    throw new LociError('EMBEDDER_MISMATCH', `The index was built with ${embedderId}, which cannot be recreated from "${spec}" here.`, {
      details: { embedderId, spec },
    });
  }
  return { spec, model };
}
