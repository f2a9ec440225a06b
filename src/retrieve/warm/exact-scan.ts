import type { RowFilter } from '../../store/filter-match.js';
import type { TopK } from '../../store/top-k.js';
import { kernelDots } from './dot-kernel.js';
import type { MetaSlots } from './meta-slots.js';

/** What an exact scan reads: `count` rows of `vectors` (row r is slot `slots[r]`, or slot r without a slot list). */
export interface ScanSource {
  vectors: Float32Array;
  slots: Int32Array | undefined;
  count: number;
  dimensions: number;
  /** Row id per slot (−1: free). */
  rowIds: Float64Array;
  metas: MetaSlots;
  /** Bumped by the owner at every write into `vectors` (the kernel's copy of them is kept until it changes or `vectors` is another array). */
  version: number;
}

/**
 * Scores every live row of `source` that `accept` passes against `query` (× `scale`, its inverse
 * norm) into `top`. The dot products come from the WebAssembly kernel (dot-kernel.ts), which
 * sums as `loopDot` does; matrices past the kernel's size and runtimes without WebAssembly SIMD
 * use `loopDot` itself.
 */
export function scanInto(source: ScanSource, query: Float32Array, scale: number, top: TopK, accept: RowFilter | undefined): void {
  const { vectors, slots, count, dimensions, rowIds, metas } = source;
  const dots = kernelDots(vectors, count, dimensions, query, source.version);
  for (let row = 0; row < count; row++) {
    const slot = slots === undefined ? row : (slots[row] as number);
    const rowId = rowIds[slot] as number;
    if (rowId < 0) continue;
    if (accept !== undefined && !metas.accepts(slot, accept)) continue;
    const dot = dots !== undefined ? (dots[row] as number) : loopDot(vectors, row * dimensions, query, dimensions);
    const value = dot * scale;
    if (value >= top.floor) top.push(rowId, value);
  }
}

/**
 * One row's dot product with `query` in JavaScript: the sums the kernel reproduces bit for bit.
 * Four accumulators break the dependency chain; dimensions are multiples of 4 in practice.
 */
export function loopDot(vectors: Float32Array, offset: number, query: Float32Array, dimensions: number): number {
  let dot0 = 0;
  let dot1 = 0;
  let dot2 = 0;
  let dot3 = 0;
  let index = 0;
  for (; index + 3 < dimensions; index += 4) {
    dot0 += (vectors[offset + index] as number) * (query[index] as number);
    dot1 += (vectors[offset + index + 1] as number) * (query[index + 1] as number);
    dot2 += (vectors[offset + index + 2] as number) * (query[index + 2] as number);
    dot3 += (vectors[offset + index + 3] as number) * (query[index + 3] as number);
  }
  for (; index < dimensions; index++) dot0 += (vectors[offset + index] as number) * (query[index] as number);
  return dot0 + dot1 + dot2 + dot3;
}
