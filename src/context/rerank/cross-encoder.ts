import { LociError, throwIfAborted } from '../../errors/index.js';
import { loadTransformers, locateModel } from '../../embed/local/transformers.js';
import type { Reranker } from './spec.js';

export interface CrossEncoderOptions {
  /** A Hugging Face cross-encoder (e.g. `Xenova/ms-marco-MiniLM-L-6-v2`) or a local folder. */
  model: string;
  offline?: boolean;
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4';
  cacheDir?: string;
  /** Pairs scored per model call (default 16). */
  batchSize?: number;
}

type Tokenizer = (texts: string[], options: { text_pair: string[]; padding: boolean; truncation: boolean }) => Record<string, unknown>;
type Classifier = (inputs: Record<string, unknown>) => Promise<{ logits: { data: Float32Array; dims: number[] } }>;
interface TransformersClasses {
  AutoTokenizer: { from_pretrained(name: string, options: { local_files_only?: boolean }): Promise<Tokenizer> };
  AutoModelForSequenceClassification: { from_pretrained(name: string, options: { dtype?: string; local_files_only?: boolean }): Promise<Classifier> };
}

/**
 * A cross-encoder reranker through transformers.js: each (query, snippet) pair is read
 * together by a sequence-classification model and scored by its relevance logit (the last
 * label's when there are several). Optional, loaded lazily, like the ONNX embedder.
 */
export async function crossEncoderReranker(options: CrossEncoderOptions): Promise<Reranker> {
  const transformers = await loadTransformers();
  const { modelName, isFolder } = locateModel(transformers, options);
  const classes = transformers as unknown as TransformersClasses;
  const localOnly = options.offline || isFolder ? { local_files_only: true } : {};
  let tokenizer: Tokenizer;
  let model: Classifier;
  try {
    tokenizer = await classes.AutoTokenizer.from_pretrained(modelName, localOnly);
    model = await classes.AutoModelForSequenceClassification.from_pretrained(modelName, { dtype: options.dtype ?? 'q8', ...localOnly });
  } catch (error) {
    throw new LociError('EMBEDDER_UNAVAILABLE', `Cannot load the cross-encoder ${options.model}: ${(error as Error).message}`, {
      cause: error,
      hint: isFolder || options.offline ? 'Check the folder holds config.json, tokenizer.json and onnx/model*.onnx.' : 'Check the model id, your network, or pass a local folder.',
    });
  }
  const batchSize = options.batchSize ?? 16;
  return {
    specificationVersion: 'v1',
    provider: 'cross-encoder',
    modelId: options.model,
    async doRerank({ query, documents: items, abortSignal }) {
      const ranking: Array<{ index: number; score: number }> = [];
      for (let start = 0; start < items.length; start += batchSize) {
        throwIfAborted(abortSignal);
        const batch = items.slice(start, start + batchSize);
        const inputs = tokenizer(
          batch.map(() => query),
          { text_pair: batch.map((item) => `${item.path}\n${item.text}`), padding: true, truncation: true },
        );
        const { logits } = await model(inputs);
        const labels = logits.dims[logits.dims.length - 1] ?? 1;
        for (let index = 0; index < batch.length; index++) ranking.push({ index: start + index, score: logits.data[index * labels + labels - 1] as number });
      }
      return { ranking };
    },
  };
}
