import { isLociError, LociError } from '../../errors/index.js';
import type { EmbeddingModel } from '../spec.js';
import { fixedToken, type AccessTokenSource } from './access-token.js';
import { postJson, vectorFrom } from './post-json.js';

export interface VertexOptions {
  modelId: string;
  project: string;
  location: string;
  dimensions: number;
  /** A bearer token (e.g. from `gcloud auth print-access-token`), or a source that renews it. */
  accessToken: string | AccessTokenSource;
  apiKeyEnv: string;
  /** Override the endpoint host (tests, private endpoints). */
  baseUrl?: string;
  timeoutMs?: number;
}

/**
 * Vertex AI `:predict`, as the Unity seed calls it: `instances[].content` in,
 * `predictions[].embeddings.values` out, with the task type set per purpose.
 */
export function createVertexEmbedder(options: VertexOptions): EmbeddingModel {
  const label = `vertex:${options.modelId}`;
  const host = options.baseUrl ?? `https://${options.location}-aiplatform.googleapis.com`;
  const url = `${host.replace(/\/+$/, '')}/v1/projects/${options.project}/locations/${options.location}/publishers/google/models/${options.modelId}:predict`;
  const tokens = typeof options.accessToken === 'string' ? fixedToken(options.accessToken, options.apiKeyEnv) : options.accessToken;
  return {
    specificationVersion: 'v1',
    provider: 'vertex',
    modelId: options.modelId,
    dimensions: options.dimensions,
    maxEmbeddingsPerCall: 250,
    supportsParallelCalls: true,
    async doEmbed({ values, purpose, abortSignal }) {
      const taskType = purpose === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT';
      const send = async (refresh: boolean) =>
        (await postJson({
          label,
          url,
          body: { instances: values.map((content) => ({ content, task_type: taskType })), parameters: { outputDimensionality: options.dimensions } },
          headers: { authorization: `Bearer ${await tokens.token({ refresh })}` },
          timeoutMs: options.timeoutMs ?? 60_000,
          apiKeyEnv: options.apiKeyEnv,
          ...(abortSignal ? { abortSignal } : {}),
        })) as { predictions?: Array<{ embeddings?: { values?: unknown } }> };
      let reply: Awaited<ReturnType<typeof send>>;
      try {
        reply = await send(false);
      } catch (error) {
        // A token refused before its time (revoked, clock skew): one new token, one more try.
        if (!tokens.refreshable || !isLociError(error) || error.code !== 'EMBEDDER_AUTH' || error.details.status !== 401) throw withHint(error, tokens.hint);
        reply = await send(true).catch((again: unknown) => {
          throw withHint(again, tokens.hint);
        });
      }
      const predictions = Array.isArray(reply?.predictions) ? reply.predictions : [];
      return { embeddings: predictions.map((prediction, index) => vectorFrom(prediction?.embeddings?.values, label, `predictions[${index}].embeddings.values`)) };
    },
  };
}

/** A refusal names where the token came from (the variable, or the command to check). */
function withHint(error: unknown, hint: string): unknown {
  if (!isLociError(error) || error.code !== 'EMBEDDER_AUTH' || error.details.status === undefined) return error;
  return new LociError(error.code, error.message, { hint, details: error.details, cause: error });
}
