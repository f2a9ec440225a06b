/**
 * A WebAssembly SIMD kernel for the exact vector scan: the dot product of every row of a
 * row-major f32 matrix with a query, summed exactly as the JavaScript loop in exact-scan.ts
 * sums it (each f32 product is exact in f64; four f64 accumulators over the dimensions modulo
 * 4, a tail added to the first, the four added left to right), so scores are bit-identical.
 * Two f64x2 lanes hold the four accumulators. It answers cold, where the JavaScript loop runs
 * in V8's interpreter for its first milliseconds (a one-shot search of a small repository), and
 * warm it is several times faster (docs/benchmarks.md). The module (~360 bytes) is assembled
 * here from the instructions below, not shipped as a binary.
 */

const uleb = (value: number): number[] => {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
};
const sleb = (value: number): number[] => {
  const out: number[] = [];
  let rest = value | 0;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if ((rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
const name = (text: string): number[] => vector([...new TextEncoder().encode(text)].map((byte) => [byte]));

const I32 = 0x7f;
const F64 = 0x7c;
const V128 = 0x7b;
const get = (local: number) => [0x20, ...uleb(local)];
const set = (local: number) => [0x21, ...uleb(local)];
const i32 = (value: number) => [0x41, ...sleb(value)];
const ADD = [0x6a];
const AND = [0x71];
const SHL = [0x74];
const GE_U = [0x4f];
const simd = (opcode: number, ...immediates: number[]) => [0xfd, ...uleb(opcode), ...immediates];
const V128_LOAD = simd(0x00, 2, 0); // align 4, offset 0
const V128_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));
const HIGH_HALF = simd(0x0d, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7); // i8x16.shuffle: lanes 2, 3 to 0, 1
const PROMOTE_LOW = simd(0x5f); // f64x2.promote_low_f32x4
const F64X2_ADD = simd(0xf0);
const F64X2_MUL = simd(0xf2);
const lane = (index: number) => simd(0x21, index); // f64x2.extract_lane
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const F32_LOAD = [0x2a, 2, 0];
const F64_STORE = [0x39, 3, 0];
const F64_PROMOTE = [0xbb];
const F64_ADD = [0xa0];
const F64_MUL = [0xa2];

// dots(query, matrix, out, rows, dims): out[r] (f64) = row r · query. Params 0–4, then locals.
const [QUERY, MATRIX, OUT, ROWS, DIMS, ROW, INDEX, BASE, QUADS, ACC01, ACC23, ROW4, QUERY4, DOT0] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] as const;
/** The address of f32 element `index…` (instructions leaving it on the stack) past `base`. */
const at = (base: number, ...index: number[]) => [...get(base), ...index, ...i32(2), ...SHL, ...ADD];
// biome-ignore format: one instruction group a line reads as the assembly it is
const body = [
  ...get(DIMS), ...i32(-4), ...AND, ...set(QUADS),
  ...BLOCK, ...LOOP,
  ...get(ROW), ...get(ROWS), ...GE_U, ...brIf(1),
  ...V128_ZERO, ...set(ACC01), ...V128_ZERO, ...set(ACC23), ...i32(0), ...set(INDEX),
  // Four dimensions at a time: accumulators 0, 1 in ACC01 and 2, 3 in ACC23.
  ...BLOCK, ...LOOP,
  ...get(INDEX), ...get(QUADS), ...GE_U, ...brIf(1),
  ...at(MATRIX, ...get(BASE), ...get(INDEX), ...ADD), ...V128_LOAD, ...set(ROW4),
  ...at(QUERY, ...get(INDEX)), ...V128_LOAD, ...set(QUERY4),
  ...get(ACC01), ...get(ROW4), ...PROMOTE_LOW, ...get(QUERY4), ...PROMOTE_LOW, ...F64X2_MUL, ...F64X2_ADD, ...set(ACC01),
  ...get(ACC23), ...get(ROW4), ...get(ROW4), ...HIGH_HALF, ...PROMOTE_LOW, ...get(QUERY4), ...get(QUERY4), ...HIGH_HALF, ...PROMOTE_LOW, ...F64X2_MUL, ...F64X2_ADD, ...set(ACC23),
  ...get(INDEX), ...i32(4), ...ADD, ...set(INDEX), ...br(0),
  ...END, ...END,
  // The remaining dimensions go to accumulator 0, one at a time.
  ...get(ACC01), ...lane(0), ...set(DOT0),
  ...BLOCK, ...LOOP,
  ...get(INDEX), ...get(DIMS), ...GE_U, ...brIf(1),
  ...get(DOT0),
  ...at(MATRIX, ...get(BASE), ...get(INDEX), ...ADD), ...F32_LOAD, ...F64_PROMOTE,
  ...at(QUERY, ...get(INDEX)), ...F32_LOAD, ...F64_PROMOTE,
  ...F64_MUL, ...F64_ADD, ...set(DOT0),
  ...get(INDEX), ...i32(1), ...ADD, ...set(INDEX), ...br(0),
  ...END, ...END,
  // out[row] = ((dot0 + dot1) + dot2) + dot3
  ...get(OUT), ...get(ROW), ...i32(3), ...SHL, ...ADD,
  ...get(DOT0), ...get(ACC01), ...lane(1), ...F64_ADD, ...get(ACC23), ...lane(0), ...F64_ADD, ...get(ACC23), ...lane(1), ...F64_ADD,
  ...F64_STORE,
  ...get(BASE), ...get(DIMS), ...ADD, ...set(BASE),
  ...get(ROW), ...i32(1), ...ADD, ...set(ROW), ...br(0),
  ...END, ...END,
  ...END,
];
const code = [
  ...vector([
    [4, I32],
    [4, V128],
    [1, F64],
  ]),
  ...body,
];

/** The kernel's module bytes (exported for its test). */
export const DOT_KERNEL_BYTES = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
  ...section(1, vector([[0x60, ...vector([[I32], [I32], [I32], [I32], [I32]]), ...vector([])]])),
  ...section(3, vector([[0]])),
  ...section(5, vector([[0x00, 1]])), // memory: one page to start, grown as needed
  ...section(
    7,
    vector([
      [...name('memory'), 0x02, 0],
      [...name('dots'), 0x00, 0],
    ]),
  ),
  ...section(10, vector([[...uleb(code.length), ...code]])),
]);

/** Matrices above this many floats (32 MB) are scanned in JavaScript: the kernel would hold a second copy. */
export const KERNEL_MAX_FLOATS = 8 * 1024 * 1024;

/** The part of the WebAssembly API used here (this project's TypeScript libraries declare none). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

interface Kernel {
  memory: WasmMemory;
  dots: (query: number, matrix: number, out: number, rows: number, dims: number) => void;
  /** The matrix last copied in, its version and shape (copied again when any differs). */
  copied: WeakRef<Float32Array> | undefined;
  version: number;
  rows: number;
  dims: number;
}

let kernel: Kernel | null | undefined;
/** A second instance for gathered rows, so the exact scan's copy of its matrix stays in the first. */
let gatherKernel: Kernel | null | undefined;

function instantiate(): Kernel | null {
  try {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (!wasm?.validate(DOT_KERNEL_BYTES)) return null;
    const { exports } = new wasm.Instance(new wasm.Module(DOT_KERNEL_BYTES));
    return { memory: exports.memory as WasmMemory, dots: exports.dots as Kernel['dots'], copied: undefined, version: -1, rows: -1, dims: -1 };
  } catch {
    return null; // no WebAssembly SIMD here: the JavaScript loop answers
  }
}

/** Where a call's rows and results go in `kernel`'s memory (the query first), grown to hold them. */
function layout(kernel: Kernel, rows: number, dims: number): { matrixAt: number; outAt: number; grown: boolean } {
  const matrixAt = Math.ceil((dims * 4) / 16) * 16;
  const outAt = Math.ceil((matrixAt + rows * dims * 4) / 8) * 8;
  const bytes = outAt + rows * 8;
  const { memory } = kernel;
  if (memory.buffer.byteLength >= bytes) return { matrixAt, outAt, grown: false };
  memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / 65_536));
  return { matrixAt, outAt, grown: true };
}

/**
 * The unscaled dot product of each of the first `rows` rows of `matrix` with `query`, or
 * undefined (the caller scans in JavaScript) without WebAssembly SIMD or past KERNEL_MAX_FLOATS.
 * The matrix is copied into the kernel's memory only when it, `version` or the shape changed
 * since the last call: callers bump `version` whenever they write into the matrix. The result
 * is a view valid until the next call.
 */
export function kernelDots(matrix: Float32Array, rows: number, dims: number, query: Float32Array, version: number): Float64Array | undefined {
  const floats = rows * dims;
  if (rows <= 0 || dims <= 0 || floats > KERNEL_MAX_FLOATS || query.length !== dims || matrix.length < floats) return undefined;
  if (kernel === undefined) kernel = instantiate();
  if (kernel === null) return undefined;
  const { matrixAt, outAt, grown } = layout(kernel, rows, dims);
  const { memory } = kernel;
  if (grown) kernel.copied = undefined; // grown: copied again (cheap next to a growth)
  if (kernel.copied?.deref() !== matrix || kernel.version !== version || kernel.rows !== rows || kernel.dims !== dims) {
    new Float32Array(memory.buffer, matrixAt, floats).set(matrix.subarray(0, floats));
    kernel.copied = new WeakRef(matrix);
    kernel.version = version;
    kernel.rows = rows;
    kernel.dims = dims;
  }
  new Float32Array(memory.buffer, 0, dims).set(query);
  kernel.dots(0, matrixAt, outAt, rows, dims);
  return new Float64Array(memory.buffer, outAt, rows);
}

/**
 * The dot product with `query` of row `slots[i]` of `matrix` (row-major, `dims` wide) for each
 * of the first `count` slots, summed as kernelDots sums (bit-identical to `loopDot`); undefined
 * without WebAssembly SIMD or past KERNEL_MAX_FLOATS. The rows are copied into the kernel's own
 * memory at each call (a graph's few hundred candidates: far less than the dot products cost in
 * JavaScript). The result is a view valid until the next call.
 */
export function kernelGatherDots(matrix: Float32Array, slots: ArrayLike<number>, count: number, dims: number, query: Float32Array): Float64Array | undefined {
  const floats = count * dims;
  if (count <= 0 || dims <= 0 || floats > KERNEL_MAX_FLOATS || query.length !== dims) return undefined;
  if (gatherKernel === undefined) gatherKernel = instantiate();
  if (gatherKernel === null) return undefined;
  const { matrixAt, outAt } = layout(gatherKernel, count, dims);
  const { memory } = gatherKernel;
  const rows = new Float32Array(memory.buffer, matrixAt, floats);
  for (let index = 0; index < count; index++) {
    const from = (slots[index] as number) * dims;
    if (from < 0 || from + dims > matrix.length) return undefined;
    rows.set(matrix.subarray(from, from + dims), index * dims);
  }
  new Float32Array(memory.buffer, 0, dims).set(query);
  gatherKernel.dots(0, matrixAt, outAt, count, dims);
  return new Float64Array(memory.buffer, outAt, count);
}
