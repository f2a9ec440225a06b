/**
 * Just enough protobuf to write an ONNX ModelProto, so tests can build a real (tiny) model
 * instead of downloading one. Field numbers follow onnx/onnx.proto.
 */
type Field = [number, 'varint', number | bigint] | [number, 'bytes', Uint8Array] | [number, 'string', string] | [number, 'message', Field[]];

function varint(value: number | bigint): number[] {
  let rest = BigInt(value);
  if (rest < 0n) rest = (1n << 64n) + rest;
  const out: number[] = [];
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest > 0n) byte |= 0x80;
    out.push(byte);
  } while (rest > 0n);
  return out;
}

export function encodeMessage(fields: Field[]): Uint8Array {
  const out: number[] = [];
  for (const [number, kind, value] of fields) {
    if (kind === 'varint') {
      out.push(...varint((number << 3) | 0), ...varint(value));
      continue;
    }
    const bytes = kind === 'bytes' ? value : kind === 'string' ? new TextEncoder().encode(value) : encodeMessage(value);
    out.push(...varint((number << 3) | 2), ...varint(bytes.length));
    for (const byte of bytes) out.push(byte);
  }
  return Uint8Array.from(out);
}

const FLOAT = 1;
const INT64 = 7;

function tensorType(elementType: number, dims: Array<number | string>): Field[] {
  const shape: Field[] = dims.map((dim) => [1, 'message', typeof dim === 'number' ? [[1, 'varint', dim]] : [[2, 'string', dim]]] as Field);
  return [
    [
      1,
      'message',
      [
        [1, 'varint', elementType],
        [2, 'message', shape],
      ],
    ],
  ];
}

function valueInfo(name: string, elementType: number, dims: Array<number | string>): Field {
  return [
    11,
    'message',
    [
      [1, 'string', name],
      [2, 'message', tensorType(elementType, dims)],
    ],
  ];
}

function node(opType: string, inputs: string[], outputs: string[], attributes: Field[] = []): Field {
  return [1, 'message', [...inputs.map((input) => [1, 'string', input] as Field), ...outputs.map((output) => [2, 'string', output] as Field), [4, 'string', opType], ...attributes]];
}

function tensor(name: string, dataType: number, dims: number[], raw: Uint8Array): Field {
  return [5, 'message', [...dims.map((dim) => [1, 'varint', dim] as Field), [2, 'varint', dataType], [8, 'string', name], [9, 'bytes', raw]]];
}

/**
 * A BERT-shaped feature extractor: last_hidden_state = embeddings[input_ids] × mask. With
 * transformers.js's mean pooling this yields the mean of the tokens' rows, which is enough
 * to exercise loading, tokenising, pooling and normalisation for real.
 */
export function tinyBertOnnx(embeddings: Float32Array, vocabularySize: number, dimensions: number): Uint8Array {
  const graph: Field[] = [
    node('Gather', ['embeddings', 'input_ids'], ['gathered']),
    node(
      'Cast',
      ['attention_mask'],
      ['mask_float'],
      [
        [
          5,
          'message',
          [
            [1, 'string', 'to'],
            [20, 'varint', 2],
            [3, 'varint', FLOAT],
          ],
        ],
      ],
    ),
    node('Unsqueeze', ['mask_float', 'unsqueeze_axes'], ['mask_3d']),
    node('Mul', ['gathered', 'mask_3d'], ['last_hidden_state']),
    [2, 'string', 'tiny-bert'],
    tensor('embeddings', FLOAT, [vocabularySize, dimensions], new Uint8Array(embeddings.buffer, embeddings.byteOffset, embeddings.byteLength)),
    tensor('unsqueeze_axes', INT64, [1], new Uint8Array(new BigInt64Array([2n]).buffer)),
    valueInfo('input_ids', INT64, ['batch', 'sequence']),
    valueInfo('attention_mask', INT64, ['batch', 'sequence']),
  ];
  // outputs use field 12
  graph.push([
    12,
    'message',
    [
      [1, 'string', 'last_hidden_state'],
      [2, 'message', tensorType(FLOAT, ['batch', 'sequence', dimensions])],
    ],
  ]);
  return encodeMessage([
    [1, 'varint', 8],
    [2, 'string', 'loci-tests'],
    [7, 'message', graph],
    [
      8,
      'message',
      [
        [1, 'string', ''],
        [2, 'varint', 13],
      ],
    ],
  ]);
}

/**
 * A BERT-shaped cross-encoder: logits = (Σ rows of segment A) · (Σ rows of segment B), split
 * by token_type_ids. Query and snippet that share topic words score high, unrelated ones
 * near zero: a real (tiny) relevance model for exercising the reranker end to end.
 */
export function tinyCrossEncoderOnnx(embeddings: Float32Array, vocabularySize: number, dimensions: number): Uint8Array {
  const keepdims = (value: number): Field => [
    5,
    'message',
    [
      [1, 'string', 'keepdims'],
      [20, 'varint', 2],
      [3, 'varint', value],
    ],
  ];
  const toFloat: Field = [
    5,
    'message',
    [
      [1, 'string', 'to'],
      [20, 'varint', 2],
      [3, 'varint', FLOAT],
    ],
  ];
  const graph: Field[] = [
    node('Gather', ['embeddings', 'input_ids'], ['gathered']),
    node('Cast', ['attention_mask'], ['mask_float'], [toFloat]),
    node('Cast', ['token_type_ids'], ['type_float'], [toFloat]),
    node('Mul', ['mask_float', 'type_float'], ['mask_b']),
    node('Sub', ['mask_float', 'mask_b'], ['mask_a']),
    node('Unsqueeze', ['mask_a', 'axis_2'], ['mask_a3']),
    node('Unsqueeze', ['mask_b', 'axis_2'], ['mask_b3']),
    node('Mul', ['gathered', 'mask_a3'], ['rows_a']),
    node('Mul', ['gathered', 'mask_b3'], ['rows_b']),
    node('ReduceSum', ['rows_a', 'axis_1'], ['sum_a'], [keepdims(0)]),
    node('ReduceSum', ['rows_b', 'axis_1'], ['sum_b'], [keepdims(0)]),
    node('Mul', ['sum_a', 'sum_b'], ['product']),
    node('ReduceSum', ['product', 'axis_1'], ['logits'], [keepdims(1)]),
    [2, 'string', 'tiny-cross-encoder'],
    tensor('embeddings', FLOAT, [vocabularySize, dimensions], new Uint8Array(embeddings.buffer, embeddings.byteOffset, embeddings.byteLength)),
    tensor('axis_1', INT64, [1], new Uint8Array(new BigInt64Array([1n]).buffer)),
    tensor('axis_2', INT64, [1], new Uint8Array(new BigInt64Array([2n]).buffer)),
    valueInfo('input_ids', INT64, ['batch', 'sequence']),
    valueInfo('attention_mask', INT64, ['batch', 'sequence']),
    valueInfo('token_type_ids', INT64, ['batch', 'sequence']),
  ];
  graph.push([
    12,
    'message',
    [
      [1, 'string', 'logits'],
      [2, 'message', tensorType(FLOAT, ['batch', 1])],
    ],
  ]);
  return encodeMessage([
    [1, 'varint', 8],
    [2, 'string', 'loci-tests'],
    [7, 'message', graph],
    [
      8,
      'message',
      [
        [1, 'string', ''],
        [2, 'varint', 13],
      ],
    ],
  ]);
}
