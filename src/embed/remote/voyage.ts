import type { EmbeddingModel } from '../spec.js';
import { postJson, vectorFrom } from './post-json.js';

export interface VoyageOptions {
  modelId: string;
  dimensions: number;
  /** Sent as `output_dimension` (voyage-3.5, voyage-code-3, … can shorten vectors); left out when not set, for models that refuse it. */
  outputDimension?: number;
  apiKey: string;
  apiKeyEnv: string;
  baseUrl?: string;
  timeoutMs?: number;
}

/** Voyage AI `/v1/embeddings`, with `input_type` query or document (voyage-code-3 cares). */
export function createVoyageEmbedder(options: VoyageOptions): EmbeddingModel {
  const label = `voyage:${options.modelId}`;
  const url = `${(options.baseUrl ?? 'https://api.voyageai.com/v1').replace(/\/+$/, '')}/embeddings`;
  return {
    specificationVersion: 'v1',
    provider: 'voyage',
    modelId: options.modelId,
    dimensions: options.dimensions,
    maxEmbeddingsPerCall: 128,
    supportsParallelCalls: true,
    async doEmbed({ values, purpose, abortSignal }) {
      const reply = (await postJson({
        label,
        url,
        body: { input: values, model: options.modelId, input_type: purpose, ...(options.outputDimension ? { output_dimension: options.outputDimension } : {}) },
        headers: { authorization: `Bearer ${options.apiKey}` },
        timeoutMs: options.timeoutMs ?? 60_000,
        apiKeyEnv: options.apiKeyEnv,
        ...(abortSignal ? { abortSignal } : {}),
      })) as { data?: Array<{ index?: number; embedding?: unknown }>; usage?: { total_tokens?: number } };
      const data = Array.isArray(reply?.data) ? [...reply.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)) : [];
      return {
        embeddings: data.map((item, index) => vectorFrom(item?.embedding, label, `data[${index}].embedding`)),
        ...(reply?.usage?.total_tokens ? { usage: { tokens: reply.usage.total_tokens } } : {}),
      };
    },
  };
}
