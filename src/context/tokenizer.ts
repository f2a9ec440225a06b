import { LociError } from '../errors/index.js';

/** Counts the size of text in the unit a budget is kept in. */
export interface TokenCounter {
  /** `o200k`, `cl100k` (BPE tokens, gpt-tokenizer) or `bytes` (UTF-8). */
  readonly id: string;
  readonly unit: 'tokens' | 'bytes';
  count(text: string): number;
}

export const tokenizerIds = ['o200k', 'cl100k', 'bytes'] as const;
export type TokenizerId = (typeof tokenizerIds)[number];

const encoder = new TextEncoder();
const bytesCounter: TokenCounter = { id: 'bytes', unit: 'bytes', count: (text) => encoder.encode(text).length };

/**
 * The tokenizer for a model name or tokenizer id: GPT-4o/4.1/5 and o-series → o200k,
 * GPT-4/3.5 and most open models served through OpenAI-compatible APIs → cl100k (a close
 * stand-in), `bytes` for a byte budget. gpt-tokenizer is loaded on first use.
 */
export async function loadTokenCounter(spec: string = 'o200k'): Promise<TokenCounter> {
  const id = resolveTokenizerId(spec);
  if (id === 'bytes') return bytesCounter;
  try {
    const module = (id === 'o200k' ? await import('gpt-tokenizer/encoding/o200k_base') : await import('gpt-tokenizer/encoding/cl100k_base')) as {
      countTokens: (text: string) => number;
    };
    return { id, unit: 'tokens', count: (text) => module.countTokens(text) };
  } catch (error) {
    // The byte count is an upper bound on BPE tokens, so a budget kept in bytes never overflows.
    void error;
    return { ...bytesCounter, id: `bytes (gpt-tokenizer unavailable)` };
  }
}

export function resolveTokenizerId(spec: string): TokenizerId {
  const name = spec.toLowerCase();
  if ((tokenizerIds as readonly string[]).includes(name)) return name as TokenizerId;
  if (/^(gpt-4o|gpt-4\.1|gpt-5|o[1-9]|chatgpt-4o|gpt-oss)/.test(name)) return 'o200k';
  if (/^(gpt-4|gpt-3\.5|text-embedding|llama|mistral|qwen|gemma|phi|deepseek|ai\/)/.test(name) || name.includes('/')) return 'cl100k';
  throw new LociError('INVALID_ARGUMENT', `Unknown tokenizer "${spec}"; use ${tokenizerIds.join(', ')} or a model name such as gpt-4o.`);
}
