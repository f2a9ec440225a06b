import { z } from 'zod';
import type { ContextOptions } from './context-types.js';
import { abortSignal, checkTypes, finite, plainObject, strings } from '../errors/check-types.js';

/** Every key of ContextOptions, and no other (the compiler holds the two together). */
export const contextOptions = z.looseObject({
  maxTokens: finite.optional(),
  softTokens: finite.optional(),
  tokenizer: z.string().optional(),
  topN: finite.optional(),
  topK: finite.optional(),
  threshold: finite.optional(),
  minSimilarity: finite.optional(),
  paths: strings.optional(),
  include: strings.optional(),
  all: z.string().optional(),
  smallProject: z.boolean().optional(),
  reranker: plainObject.optional(),
  pickFilesWith: plainObject.optional(),
  repoMapTokens: finite.optional(),
  system: z.string().optional(),
  // Each turn's shape is checked where the history is read (build-context.ts#checkHistory).
  history: z.unknown().optional(),
  conversationId: z.string().optional(),
  historyTokens: finite.optional(),
  conversationNamespace: z.string().optional(),
  template: z.object({ source: z.string(), text: z.string() }).optional(),
  readBudgetBytes: finite.optional(),
  signal: abortSignal.optional(),
} satisfies Record<keyof ContextOptions, z.ZodType>);

/** The types of a library caller's buildContext options (errors/check-types.ts): `{ conversationID }` was ignored, `maxTokens: '4000'` compared as a string. */
export function checkContextOptions(options: unknown): void {
  checkTypes(contextOptions, options, 'context options', "{ maxTokens: 4000, conversationId: 'chat-1', paths: ['src/'] }");
}
