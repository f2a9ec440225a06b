import type { EmbeddingModel } from '../spec.js';
import { postJson, vectorFrom } from './post-json.js';

export interface VertexOptions {
  modelId: string;
  project: string;
  location: string;
  dimensions: number;
  /** A bearer token (e.g. from `gcloud auth print-access-token`). */
  accessToken: string;
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
  return {
    specificationVersion: 'v1',
    provider: 'vertex',
    modelId: options.modelId,
    dimensions: options.dimensions,
    maxEmbeddingsPerCall: 250,
    supportsParallelCalls: true,
    async doEmbed({ values, purpose, abortSignal }) {
      const taskType = purpose === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT';
      const reply = (await postJson({
        label,
        url,
        body: { instances: values.map((content) => ({ content, task_type: taskType })), parameters: { outputDimensionality: options.dimensions } },
        headers: { authorization: `Bearer ${options.accessToken}` },
        timeoutMs: options.timeoutMs ?? 60_000,
        apiKeyEnv: options.apiKeyEnv,
        ...(abortSignal ? { abortSignal } : {}),
      })) as { predictions?: Array<{ embeddings?: { values?: unknown } }> };
      const predictions = Array.isArray(reply?.predictions) ? reply.predictions : [];
      return { embeddings: predictions.map((prediction, index) => vectorFrom(prediction?.embeddings?.values, label, `predictions[${index}].embeddings.values`)) };
    },
  };
}
