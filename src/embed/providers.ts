import { LociError } from '../errors/index.js';
import { registerEmbedder, type EmbedderFactoryContext } from './registry.js';
import { requireKey } from './remote/post-json.js';
import { createGeminiEmbedder } from './remote/gemini.js';
import { createOpenAICompatibleEmbedder } from './remote/openai-compatible.js';
import { createVertexEmbedder } from './remote/vertex.js';
import { createVoyageEmbedder } from './remote/voyage.js';
import type { EmbeddingModel } from './spec.js';
import { createStaticEmbedder } from './static/static-embedder.js';
import { createTransformersEmbedder } from './local/transformers.js';

/** Output sizes of well-known models, so no request is needed to learn them. */
const knownDimensions: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
  'ai/mxbai-embed-large': 1024,
  'all-minilm': 384,
  'bge-m3': 1024,
  'snowflake-arctic-embed': 1024,
  'text-embedding-004': 768,
  'text-embedding-005': 768,
  'text-multilingual-embedding-002': 768,
  'gemini-embedding-001': 3072,
  'voyage-code-3': 1024,
  'voyage-3': 1024,
  'voyage-3-lite': 512,
  'voyage-3.5': 1024,
};

/** OpenAI-compatible servers and where they listen by default. */
const compatiblePresets: Record<string, { baseUrl: string; defaultModel: string; apiKeyEnv?: string; requestDimensions?: boolean; describe: string }> = {
  openai: { baseUrl: 'https://api.openai.com/v1', defaultModel: 'text-embedding-3-small', apiKeyEnv: 'OPENAI_API_KEY', requestDimensions: true, describe: 'OpenAI /v1/embeddings (key: OPENAI_API_KEY)' },
  ollama: { baseUrl: 'http://127.0.0.1:11434/v1', defaultModel: 'nomic-embed-text', describe: 'Ollama on 127.0.0.1:11434 (ollama:nomic-embed-text)' },
  docker: { baseUrl: 'http://127.0.0.1:12434/engines/v1', defaultModel: 'ai/mxbai-embed-large', describe: 'Docker Model Runner (docker:ai/mxbai-embed-large)' },
  lmstudio: { baseUrl: 'http://127.0.0.1:1234/v1', defaultModel: 'text-embedding-nomic-embed-text-v1.5', describe: 'LM Studio on 127.0.0.1:1234' },
  'openai-compatible': { baseUrl: 'http://127.0.0.1:8000/v1', defaultModel: '', describe: 'Any /v1/embeddings server (vLLM, …): set embedderOptions.baseUrl' },
};

function dimensionsFor(modelId: string, context: EmbedderFactoryContext): number | undefined {
  return context.config.embedderOptions.dimensions ?? knownDimensions[modelId];
}

/** Asks the model once when its output size is not known in advance. */
async function withProbedDimensions(create: (dimensions: number) => EmbeddingModel, known: number | undefined): Promise<EmbeddingModel> {
  if (known) return create(known);
  const probe = create(1);
  const { embeddings } = await probe.doEmbed({ values: ['dimension probe'], purpose: 'document' });
  const size = embeddings[0]?.length ?? 0;
  if (size === 0) throw new LociError('EMBEDDER_FAILED', `${probe.provider}:${probe.modelId} returned an empty vector.`);
  return create(size);
}

export function registerBuiltInEmbedders(): void {
  registerEmbedder('static', 'offline default, shipped with loci (no network, no download)', async (modelId) =>
    createStaticEmbedder(modelId && modelId !== 'loci-static-v1' ? { file: modelId } : {}),
  );

  for (const [provider, preset] of Object.entries(compatiblePresets)) {
    registerEmbedder(provider, preset.describe, async (modelId, context) => {
      const options = context.config.embedderOptions;
      const model = modelId ?? preset.defaultModel;
      if (!model) throw new LociError('EMBEDDER_UNKNOWN', `Name a model: ${provider}:<model>.`);
      const apiKeyEnv = options.apiKeyEnv ?? preset.apiKeyEnv;
      const apiKey = apiKeyEnv ? (provider === 'openai' && !options.baseUrl ? requireKey(context.env, apiKeyEnv, `${provider}:${model}`) : context.env[apiKeyEnv]) : undefined;
      return withProbedDimensions(
        (dimensions) =>
          createOpenAICompatibleEmbedder({
            provider,
            modelId: model,
            baseUrl: options.baseUrl ?? preset.baseUrl,
            dimensions,
            timeoutMs: options.timeoutMs,
            ...(apiKey ? { apiKey } : {}),
            ...(apiKeyEnv ? { apiKeyEnv } : {}),
            ...(preset.requestDimensions && options.dimensions ? { requestDimensions: true } : {}),
            ...(options.batchSize ? { maxEmbeddingsPerCall: options.batchSize } : {}),
          }),
        dimensionsFor(model, context),
      );
    });
  }

  registerEmbedder('vertex', 'Google Vertex AI :predict (token: GOOGLE_ACCESS_TOKEN; project: embedderOptions.project)', async (modelId, context) => {
    const options = context.config.embedderOptions;
    const model = modelId ?? 'text-embedding-005';
    const apiKeyEnv = options.apiKeyEnv ?? 'GOOGLE_ACCESS_TOKEN';
    const project = options.project ?? context.env.GOOGLE_CLOUD_PROJECT;
    if (!project) throw new LociError('CONFIG_INVALID', 'Vertex AI needs a project: set embedderOptions.project or GOOGLE_CLOUD_PROJECT.');
    return createVertexEmbedder({
      modelId: model,
      project,
      location: options.location,
      dimensions: dimensionsFor(model, context) ?? 768,
      accessToken: requireKey(context.env, apiKeyEnv, `vertex:${model}`),
      apiKeyEnv,
      timeoutMs: options.timeoutMs,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    });
  });

  registerEmbedder('gemini', 'Gemini API embeddings (key: GEMINI_API_KEY)', async (modelId, context) => {
    const options = context.config.embedderOptions;
    const model = modelId ?? 'gemini-embedding-001';
    const apiKeyEnv = options.apiKeyEnv ?? 'GEMINI_API_KEY';
    return createGeminiEmbedder({
      modelId: model,
      dimensions: dimensionsFor(model, context) ?? 768,
      apiKey: requireKey(context.env, apiKeyEnv, `gemini:${model}`),
      apiKeyEnv,
      timeoutMs: options.timeoutMs,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    });
  });

  registerEmbedder('voyage', 'Voyage AI (voyage-code-3; key: VOYAGE_API_KEY)', async (modelId, context) => {
    const options = context.config.embedderOptions;
    const model = modelId ?? 'voyage-code-3';
    const apiKeyEnv = options.apiKeyEnv ?? 'VOYAGE_API_KEY';
    return createVoyageEmbedder({
      modelId: model,
      dimensions: dimensionsFor(model, context) ?? 1024,
      apiKey: requireKey(context.env, apiKeyEnv, `voyage:${model}`),
      apiKeyEnv,
      timeoutMs: options.timeoutMs,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    });
  });

  registerEmbedder('transformers', 'local ONNX via transformers.js (transformers:Xenova/all-MiniLM-L6-v2, or a folder)', async (modelId, context) => {
    const options = context.config.embedderOptions;
    return createTransformersEmbedder({
      model: modelId ?? 'Xenova/all-MiniLM-L6-v2',
      offline: options.offline,
      dtype: options.dtype,
      ...(options.dimensions ? { dimensions: options.dimensions } : {}),
    });
  });
}
