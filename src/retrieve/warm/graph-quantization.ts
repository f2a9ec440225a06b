import { readFileSync } from 'node:fs';

/** The scalar types a graph of loci keeps its vector copies in (2 bytes a component either way). */
export type GraphQuantization = 'bf16' | 'f16';

/** CPU features (as Linux names them) that give usearch native bf16 dot products: x86 AVX-512 BF16, Arm BF16. */
const BF16_FEATURES = new Set(['avx512_bf16', 'bf16']);

/**
 * The type a new graph keeps its vector copies in: bf16 where the CPU has bf16 dot products,
 * f16 elsewhere. bf16 keeps 8 bits of precision instead of 11; on an AMD EPYC with AVX-512 BF16
 * a graph of 1M vectors built in 231 s instead of 342 s and a walk of breadth 500 took 15 % less,
 * recall@10 after the exact rescoring unchanged (docs/benchmarks.md). Without those instructions
 * usearch computes bf16 distances with AVX2 where f16 may use AVX-512, which was not measured
 * here, so such a CPU (and a system without /proc/cpuinfo) keeps f16. A saved graph keeps its
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
    // x86 lists its features as `flags`, Arm as `Features`: every core the same.
    const match = /^(?:flags|Features)\s*:(.*)$/.exec(line);
    if (match) return (match[1] as string).split(/\s+/).some((feature) => BF16_FEATURES.has(feature)) ? 'bf16' : 'f16';
  }
  return 'f16';
}

function cpuInfo(): string {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
}
