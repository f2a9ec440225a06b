import type { EmbeddingModel } from '../spec.js';
import { postJson, vectorFrom } from './post-json.js';

export interface OpenAICompatibleOptions {
  /** `openai`, `ollama`, `docker`, `openai-compatible`, …: part of the embedder id. */
  provider: string;
  modelId: string;
  /** Up to and including `/v1` (the adapter appends `/embeddings`). */
  baseUrl: string;
  dimensions: number;
  apiKey?: string;
  apiKeyEnv?: string;
  /** Send `dimensions` in the request (OpenAI text-embedding-3 can shorten vectors). */
  requestDimensions?: boolean;
  maxEmbeddingsPerCall?: number;
  timeoutMs?: number;
}

/** `POST /v1/embeddings`: OpenAI, Ollama, Docker Model Runner, LM Studio, vLLM. */
export function createOpenAICompatibleEmbedder(options: OpenAICompatibleOptions): EmbeddingModel {
  const label = `${options.provider}:${options.modelId}`;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  return {
    specificationVersion: 'v1',
    provider: options.provider,
    modelId: options.modelId,
    dimensions: options.dimensions,
    maxEmbeddingsPerCall: options.maxEmbeddingsPerCall ?? 256,
    supportsParallelCalls: true,
    async doEmbed({ values, abortSignal }) {
      const reply = (await postJson({
        label,
        url,
        body: { model: options.modelId, input: values, encoding_format: 'float', ...(options.requestDimensions ? { dimensions: options.dimensions } : {}) },
        headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
        timeoutMs: options.timeoutMs ?? 60_000,
        ...(abortSignal ? { abortSignal } : {}),
        ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
      })) as { data?: Array<{ index?: number; embedding?: unknown }>; usage?: { total_tokens?: number } };
      const data = Array.isArray(reply?.data) ? reply.data : [];
      // The API may return items out of order; `index` says which input each belongs to.
      const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      const embeddings = ordered.map((item, position) => vectorFrom(item?.embedding, label, `data[${position}].embedding`));
      return { embeddings, ...(reply?.usage?.total_tokens ? { usage: { tokens: reply.usage.total_tokens } } : {}) };
    },
  };
}
