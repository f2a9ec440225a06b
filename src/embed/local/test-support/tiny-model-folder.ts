import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tinyBertOnnx, tinyCrossEncoderOnnx } from './onnx-writer.js';

const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

/**
 * Writes a complete transformers.js model folder (config.json, tokenizer.json,
 * tokenizer_config.json, onnx/model.onnx) whose word vectors are given by hand: words
 * that share a topic share a direction, so similarity is meaningful.
 */
export async function writeTinyModelFolder(folder: string, topics: Record<string, string[]>, dimensions = 8, kind: 'feature-extraction' | 'cross-encoder' = 'feature-extraction'): Promise<string[]> {
  const words = [...special];
  const vectors: number[][] = special.map(() => new Array<number>(dimensions).fill(0));
  Object.values(topics).forEach((topicWords, topicIndex) => {
    for (const [wordIndex, word] of topicWords.entries()) {
      words.push(word);
      const vector = new Array<number>(dimensions).fill(0.01 * ((wordIndex % 3) + 1));
      vector[topicIndex % dimensions] = 1;
      vectors.push(vector);
    }
  });
  const embeddings = Float32Array.from(vectors.flat());
  const vocab = Object.fromEntries(words.map((word, index) => [word, index]));
  await mkdir(join(folder, 'onnx'), { recursive: true });
  const crossEncoder = kind === 'cross-encoder';
  await writeFile(join(folder, 'onnx', 'model.onnx'), crossEncoder ? tinyCrossEncoderOnnx(embeddings, words.length, dimensions) : tinyBertOnnx(embeddings, words.length, dimensions));
  await writeFile(
    join(folder, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: [crossEncoder ? 'BertForSequenceClassification' : 'BertModel'],
      hidden_size: dimensions,
      vocab_size: words.length,
      max_position_embeddings: 512,
      ...(crossEncoder ? { num_labels: 1, id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } } : {}),
    }),
  );
  await writeFile(
    join(folder, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]' }),
  );
  const specialToken = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  await writeFile(
    join(folder, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: special.map((content, id) => specialToken(content, id)),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    }),
  );
  return words;
}
