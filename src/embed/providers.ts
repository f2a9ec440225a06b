import { LociError } from '../errors/index.js';
import { registerEmbedder, type EmbedderFactoryContext } from './registry.js';
import { commandToken } from './remote/access-token.js';
import { requireKey } from './remote/post-json.js';
import { createGeminiEmbedder } from './remote/gemini.js';
import { createOpenAICompatibleEmbedder } from './remote/openai-compatible.js';
import { createVertexEmbedder } from './remote/vertex.js';
import { createVoyageEmbedder } from './remote/voyage.js';
import type { EmbeddingModel } from './spec.js';
import { createStaticEmbedder, DEFAULT_STATIC_MODEL_ID } from './static/static-embedder.js';
import { namesStaticModelFile } from '../config/file-paths.js';
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
  // Voyage AI's native sizes (docs.voyageai.com/docs/embeddings); the newer models can be
  // shortened with embedderOptions.dimensions, which is then sent as output_dimension.
  'voyage-3-large': 1024,
  'voyage-3.5': 1024,
  'voyage-3.5-lite': 1024,
  'voyage-code-3': 1024,
  'voyage-context-3': 1024,
  'voyage-3': 1024,
  'voyage-3-lite': 512,
  'voyage-code-2': 1536,
  'voyage-large-2': 1536,
  'voyage-large-2-instruct': 1024,
  'voyage-2': 1024,
  'voyage-multilingual-2': 1024,
  'voyage-law-2': 1024,
  'voyage-finance-2': 1024,
};

/** OpenAI-compatible servers and where they listen by default. */
const compatiblePresets: Record<string, { baseUrl: string; defaultModel: string; apiKeyEnv?: string; requestDimensions?: boolean; describe: string }> = {
  openai: {
    baseUrl: 'https://api.openai.com/v1',
    defaultModel: 'text-embedding-3-small',
    apiKeyEnv: 'OPENAI_API_KEY',
    requestDimensions: true,
    describe: 'OpenAI /v1/embeddings (key: OPENAI_API_KEY)',
  },
  ollama: { baseUrl: 'http://127.0.0.1:11434/v1', defaultModel: 'nomic-embed-text', describe: 'Ollama on 127.0.0.1:11434 (ollama:nomic-embed-text)' },
  docker: { baseUrl: 'http://127.0.0.1:12434/engines/v1', defaultModel: 'ai/mxbai-embed-large', describe: 'Docker Model Runner (docker:ai/mxbai-embed-large)' },
  lmstudio: { baseUrl: 'http://127.0.0.1:1234/v1', defaultModel: 'text-embedding-nomic-embed-text-v1.5', describe: 'LM Studio on 127.0.0.1:1234' },
  'openai-compatible': { baseUrl: 'http://127.0.0.1:8000/v1', defaultModel: '', describe: 'Any /v1/embeddings server (vLLM, …): set embedderOptions.baseUrl' },
};

/**
 * A model's output size without asking it: the user's config, else the size the store
 * recorded when it was built with this very model (so a search, a recall or the indexing
 * worker never probes a server that may be down), else the table above (`:latest` and
 * other tags ignored: `ai/mxbai-embed-large:latest` is `ai/mxbai-embed-large`).
 */
export function dimensionsFor(provider: string, modelId: string, context: EmbedderFactoryContext): number | undefined {
  const configured = context.config.embedderOptions.dimensions;
  if (configured) return configured;
  const recorded = /^(.*)@(\d+)(#.*)?$/.exec(context.recordedEmbedderId ?? '');
  if (recorded && recorded[1] === `${provider}:${modelId}`) return Number(recorded[2]);
  return knownDimensions[modelId] ?? knownDimensions[modelId.replace(/:[\w.-]+$/, '')];
}

/** Remote models keep `embedderOptions.concurrency` requests in flight (embedMany reads it). */
function withConcurrency(model: EmbeddingModel, context: EmbedderFactoryContext): EmbeddingModel {
  return { ...model, maxParallelCalls: context.config.embedderOptions.concurrency };
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
  registerEmbedder('static', 'offline default, shipped with loci (no network, no download)', async (modelId) => {
    if (!modelId || modelId === DEFAULT_STATIC_MODEL_ID) return createStaticEmbedder();
    // `static:<file>` loads a model file; a bare name that is not the shipped model's is a mistake, not a file in the current folder.
    if (!namesStaticModelFile(modelId)) {
      throw new LociError('EMBEDDER_UNKNOWN', `"static:${modelId}" names no static model: the model shipped with loci is "${DEFAULT_STATIC_MODEL_ID}".`, {
        hint: `Use "static" (or "static:${DEFAULT_STATIC_MODEL_ID}") for the shipped model, or "static:./<model-file>" for a model file written by scripts/embedder/train.py.`,
      });
    }
    return createStaticEmbedder({ file: modelId });
  });

  for (const [provider, preset] of Object.entries(compatiblePresets)) {
    registerEmbedder(provider, preset.describe, async (modelId, context) => {
      const options = context.config.embedderOptions;
      const model = modelId ?? preset.defaultModel;
      if (!model) throw new LociError('EMBEDDER_UNKNOWN', `Name a model: ${provider}:<model>.`);
      const apiKeyEnv = options.apiKeyEnv ?? preset.apiKeyEnv;
      const apiKey = apiKeyEnv ? (provider === 'openai' && !options.baseUrl ? requireKey(context.env, apiKeyEnv, `${provider}:${model}`) : context.env[apiKeyEnv]) : undefined;
      return withProbedDimensions(
        (dimensions) =>
          withConcurrency(
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
            context,
          ),
        dimensionsFor(provider, model, context),
      );
    });
  }

  registerEmbedder('vertex', 'Google Vertex AI :predict (token: GOOGLE_ACCESS_TOKEN or embedderOptions.tokenCommand; project: embedderOptions.project)', async (modelId, context) => {
    const options = context.config.embedderOptions;
    const model = modelId ?? 'text-embedding-005';
    const apiKeyEnv = options.apiKeyEnv ?? 'GOOGLE_ACCESS_TOKEN';
    const project = options.project ?? context.env.GOOGLE_CLOUD_PROJECT;
    if (!project) throw new LociError('CONFIG_INVALID', 'Vertex AI needs a project: set embedderOptions.project or GOOGLE_CLOUD_PROJECT.');
    const tokenCommand = options.tokenCommand;
    return withConcurrency(
      createVertexEmbedder({
        modelId: model,
        project,
        location: options.location,
        dimensions: dimensionsFor('vertex', model, context) ?? 768,
        // A configured command (user config only) renews the token; else the variable's token is used as is.
        accessToken: tokenCommand ? commandToken({ command: tokenCommand, lifetimeSeconds: options.tokenLifetimeSeconds, env: context.env }) : requireKey(context.env, apiKeyEnv, `vertex:${model}`),
        apiKeyEnv,
        timeoutMs: options.timeoutMs,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      }),
      context,
    );
  });

  registerEmbedder('gemini', 'Gemini API embeddings (key: GEMINI_API_KEY)', async (modelId, context) => {
    const options = context.config.embedderOptions;
    const model = modelId ?? 'gemini-embedding-001';
    const apiKeyEnv = options.apiKeyEnv ?? 'GEMINI_API_KEY';
    return withConcurrency(
      createGeminiEmbedder({
        modelId: model,
        dimensions: dimensionsFor('gemini', model, context) ?? 768,
        apiKey: requireKey(context.env, apiKeyEnv, `gemini:${model}`),
        apiKeyEnv,
        timeoutMs: options.timeoutMs,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      }),
      context,
    );
  });

  registerEmbedder('voyage', 'Voyage AI (voyage-code-3; key: VOYAGE_API_KEY)', async (modelId, context) => {
    const options = context.config.embedderOptions;
    const model = modelId ?? 'voyage-code-3';
    const apiKeyEnv = options.apiKeyEnv ?? 'VOYAGE_API_KEY';
    const apiKey = requireKey(context.env, apiKeyEnv, `voyage:${model}`);
    // output_dimension only when the user chose a size; otherwise the model's own (known, recorded, or asked once).
    return withProbedDimensions(
      (dimensions) =>
        withConcurrency(
          createVoyageEmbedder({
            modelId: model,
            dimensions,
            apiKey,
            apiKeyEnv,
            timeoutMs: options.timeoutMs,
            ...(options.dimensions ? { outputDimension: options.dimensions } : {}),
            ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
          }),
          context,
        ),
      dimensionsFor('voyage', model, context),
    );
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
