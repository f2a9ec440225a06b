import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { LociError } from '../../errors/index.js';
import type { EmbeddingModel } from '../spec.js';

export interface TransformersOptions {
  /** A Hugging Face model id (`Xenova/all-MiniLM-L6-v2`) or a local folder with an ONNX model. */
  model: string;
  /** Never contact the hub; the model must be in the local folder or cache. */
  offline?: boolean;
  /** Weights to load: `q8` quantised (default, ~4x smaller) or `fp32`. */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4';
  /** Known output size; otherwise one probe embedding is computed at load. */
  dimensions?: number;
  /** Hub cache folder (default: transformers.js's own). */
  cacheDir?: string;
}

type FeatureExtractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

export interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; cacheDir: string | null };
  pipeline(task: 'feature-extraction', model: string, options: { dtype?: string; local_files_only?: boolean }): Promise<FeatureExtractor>;
}

const INSTALL_HINT = 'Install it with: ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers';

/** Imported on first use only: the package and its ONNX runtime are large and optional. */
export async function loadTransformers(): Promise<TransformersModule> {
  try {
    return (await import('@huggingface/transformers')) as unknown as TransformersModule;
  } catch (error) {
    throw new LociError('EMBEDDER_UNAVAILABLE', 'The transformers embedder needs the optional package @huggingface/transformers.', {
      cause: error,
      hint: INSTALL_HINT,
    });
  }
}

/**
 * Points transformers.js at a hub id or a local folder (never the network for a folder or
 * offline), and returns the name to load it by.
 */
export function locateModel(transformers: TransformersModule, options: { model: string; offline?: boolean; cacheDir?: string }): { modelName: string; isFolder: boolean } {
  const isFolder = isAbsolute(options.model) || options.model.startsWith('.') || existsSync(options.model);
  let modelName = options.model;
  if (isFolder) {
    const folder = resolve(options.model);
    if (!existsSync(folder)) throw new LociError('EMBEDDER_UNAVAILABLE', `Model folder not found: ${folder}.`);
    transformers.env.localModelPath = dirname(folder);
    modelName = basename(folder);
  }
  transformers.env.allowLocalModels = true;
  transformers.env.allowRemoteModels = !(options.offline || isFolder);
  if (options.cacheDir) transformers.env.cacheDir = options.cacheDir;
  return { modelName, isFolder };
}

/**
 * Local ONNX sentence embeddings through transformers.js (what Continue and Aye Chat run):
 * a hub id or a local folder, quantised weights by default, mean pooling, L2-normalised.
 */
export async function createTransformersEmbedder(options: TransformersOptions): Promise<EmbeddingModel> {
  const transformers = await loadTransformers();
  const { modelName, isFolder } = locateModel(transformers, options);
  let extractor: FeatureExtractor;
  try {
    extractor = await transformers.pipeline('feature-extraction', modelName, {
      dtype: options.dtype ?? 'q8',
      ...(options.offline || isFolder ? { local_files_only: true } : {}),
    });
  } catch (error) {
    throw new LociError('EMBEDDER_UNAVAILABLE', `Cannot load the ONNX model ${options.model}: ${(error as Error).message}`, {
      cause: error,
      hint: options.offline || isFolder ? 'Check the folder holds config.json, tokenizer.json and onnx/model*.onnx.' : 'Check the model id, your network, or pass a local folder.',
    });
  }
  const embed = async (values: string[]): Promise<Float32Array[]> => {
    const output = await extractor(values, { pooling: 'mean', normalize: true });
    const size = output.dims[output.dims.length - 1] as number;
    return values.map((_, index) => output.data.slice(index * size, (index + 1) * size));
  };
  const dimensions = options.dimensions ?? (await embed(['dimension probe']))[0]?.length ?? 0;
  return {
    specificationVersion: 'v1',
    provider: 'transformers',
    modelId: isFolder ? resolve(options.model) : options.model,
    dimensions,
    maxEmbeddingsPerCall: 32,
    supportsParallelCalls: false,
    revision: `${options.dtype ?? 'q8'}-mean-normalized`,
    async doEmbed({ values }) {
      return { embeddings: await embed(values) };
    },
  };
}
