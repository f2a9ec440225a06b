import { isProviderFailure, LociError } from '../errors/index.js';
import { embedMany } from './embed-many.js';
import type { EmbeddingModel } from './spec.js';

/**
 * After a query embedding fails on the provider's side (down, refusing, timing out after its
 * retries), searches and recalls stop waiting on it: each answers from its lexical signals at
 * once, saying so, instead of paying ~3 s of retries per query while it is down. Meanwhile one
 * query at a time, at most every QUERY_PROBE_EVERY_MS, is sent to it in the background; the
 * first that succeeds ends the outage for the next queries.
 */
export const QUERY_PROBE_EVERY_MS = 5_000;

interface Outage {
  error: LociError;
  lastProbe: number;
  probing: boolean;
}

const outages = new WeakMap<EmbeddingModel, Outage>();

/**
 * Embeds one query, through the outage rule above; provider failures are thrown as LociErrors a
 * search degrades on. A caller that cannot degrade (`degradable: false`: a vector-only search)
 * always asks.
 */
export async function embedQuery(model: EmbeddingModel, text: string, signal?: AbortSignal, degradable = true): Promise<Float32Array> {
  const outage = outages.get(model);
  if (outage && degradable) {
    if (!outage.probing && Date.now() - outage.lastProbe >= QUERY_PROBE_EVERY_MS) probe(model, text, outage);
    throw new LociError(outage.error.code, `${outage.error.message} (still failing; checked again in the background)`, { cause: outage.error, hint: outage.error.hint });
  }
  try {
    const vector = await embedOne(model, text, signal);
    outages.delete(model);
    return vector;
  } catch (error) {
    if (isProviderFailure(error)) outages.set(model, { error, lastProbe: Date.now(), probing: false });
    throw error;
  }
}

function probe(model: EmbeddingModel, text: string, outage: Outage): void {
  outage.probing = true;
  outage.lastProbe = Date.now();
  embedOne(model, text).then(
    () => outages.delete(model),
    (error: unknown) => {
      outage.probing = false;
      outage.lastProbe = Date.now();
      if (isProviderFailure(error)) outage.error = error;
    },
  );
}

async function embedOne(model: EmbeddingModel, text: string, signal?: AbortSignal): Promise<Float32Array> {
  const { embeddings } = await embedMany({ model, values: [text], purpose: 'query', ...(signal ? { abortSignal: signal } : {}) });
  return embeddings[0] as Float32Array;
}
