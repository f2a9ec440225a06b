import { closeSync, openSync, readSync } from 'node:fs';

/** The scalar types a graph of loci keeps its vector copies in (2 bytes a component either way). */
export type GraphQuantization = 'bf16' | 'f16';

/**
 * The CPU feature (as Linux names it) under which bf16 was measured: x86 AVX-512 BF16, which
 * usearch's bf16 kernels use. Arm's `bf16` (BFDOT) was not measured, and f16 is native there.
 */
const BF16_FEATURE = 'avx512_bf16';
/** Enough of /proc/cpuinfo for the first processor's features (the kernel writes the rest only as it is read). */
const CPUINFO_BYTES = 64 * 1024;

/**
 * The type a new graph keeps its vector copies in: bf16 where the CPU has AVX-512 BF16 dot
 * products, f16 elsewhere. bf16 keeps 8 bits of precision instead of 11; on an AMD EPYC with AVX-512 BF16
 * a graph of 1M vectors built in 231 s instead of 342 s and a walk of breadth 500 took 15 % less,
 * recall@10 after the exact rescoring unchanged (docs/benchmarks.md). Without those instructions
 * usearch computes bf16 distances with AVX2 where f16 may use AVX-512, and Arm has f16 natively;
 * neither was measured here, so they (and a system without /proc/cpuinfo) keep f16. A saved graph keeps its
 * own type whatever this says: usearch reads it from the file, and adds to it in it.
 * GRAPH_COSINE_SLACK (hnsw-options.ts) covers both.
 */
export function graphQuantization(): GraphQuantization {
  chosen ??= quantizationFor(cpuInfo());
  return chosen;
}
let chosen: GraphQuantization | undefined;

/** The type for a CPU described by `cpuinfo` (the text of Linux's /proc/cpuinfo; '' when unknown). */
export function quantizationFor(cpuinfo: string): GraphQuantization {
  for (const line of cpuinfo.split('\n')) {
    // x86 lists its features as `flags` (every core the same), Arm as `Features`.
    const match = /^(?:flags|Features)\s*:(.*)$/.exec(line);
    if (match) return (match[1] as string).split(/\s+/).includes(BF16_FEATURE) ? 'bf16' : 'f16';
  }
  return 'f16';
}

function cpuInfo(): string {
  try {
    const fd = openSync('/proc/cpuinfo', 'r');
    try {
      const buffer = Buffer.alloc(CPUINFO_BYTES);
      let filled = 0;
      for (let read = 1; read > 0 && filled < buffer.length; filled += read) read = readSync(fd, buffer, filled, buffer.length - filled, null);
      return buffer.toString('utf8', 0, filled);
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}
