import type { EmbeddingModel } from '../spec.js';
import { postJson, vectorFrom } from './post-json.js';

export interface GeminiOptions {
  modelId: string;
  dimensions: number;
  apiKey: string;
  apiKeyEnv: string;
  baseUrl?: string;
  timeoutMs?: number;
}

/** Gemini API `batchEmbedContents` (the key travels in a header, never in the URL). */
export function createGeminiEmbedder(options: GeminiOptions): EmbeddingModel {
  const label = `gemini:${options.modelId}`;
  const host = options.baseUrl ?? 'https://generativelanguage.googleapis.com';
  const url = `${host.replace(/\/+$/, '')}/v1beta/models/${options.modelId}:batchEmbedContents`;
  return {
    specificationVersion: 'v1',
    provider: 'gemini',
    modelId: options.modelId,
    dimensions: options.dimensions,
    maxEmbeddingsPerCall: 100,
    supportsParallelCalls: true,
    async doEmbed({ values, purpose, abortSignal }) {
      const taskType = purpose === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT';
      const reply = (await postJson({
        label,
        url,
        body: {
          requests: values.map((text) => ({ model: `models/${options.modelId}`, content: { parts: [{ text }] }, taskType, outputDimensionality: options.dimensions })),
        },
        headers: { 'x-goog-api-key': options.apiKey },
        timeoutMs: options.timeoutMs ?? 60_000,
        apiKeyEnv: options.apiKeyEnv,
        ...(abortSignal ? { abortSignal } : {}),
      })) as { embeddings?: Array<{ values?: unknown }> };
      const embeddings = Array.isArray(reply?.embeddings) ? reply.embeddings : [];
      return { embeddings: embeddings.map((embedding, index) => vectorFrom(embedding?.values, label, `embeddings[${index}].values`)) };
    },
  };
}
