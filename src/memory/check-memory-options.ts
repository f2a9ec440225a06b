import { z } from 'zod';
import { abortSignal, checkTypes, finite, strings } from '../errors/check-types.js';
import { interactionOutcomes, memoryKinds, recallModes } from './spec.js';

const filter = {
  namespaces: strings.optional(),
  kinds: z.array(z.enum(memoryKinds as [string, ...string[]])).optional(),
  ids: strings.optional(),
  outcome: z.enum(interactionOutcomes as [string, ...string[]]).optional(),
};

export const recallOptions = z.looseObject({
  ...filter,
  topK: finite.optional(),
  since: finite.optional(),
  until: finite.optional(),
  minScore: finite.optional(),
  minSimilarity: finite.optional(),
  mode: z.enum(recallModes as [string, ...string[]]).optional(),
  now: finite.optional(),
  explain: z.boolean().optional(),
  signal: abortSignal.optional(),
});

export const listFilter = z.looseObject({
  ...filter,
  before: finite.optional(),
  includeExpired: z.boolean().optional(),
  all: z.boolean().optional(),
  limit: finite.optional(),
  offset: finite.optional(),
});

/** The types of a library caller's recall options (errors/check-types.ts). */
export function checkRecallOptions(options: unknown): void {
  checkTypes(recallOptions, options, 'recall options', "{ namespaces: ['agents/alice'], topK: 5, mode: 'hybrid' }");
}

/** The types of a list, forget or export filter. */
export function checkMemoryFilter(value: unknown): void {
  checkTypes(listFilter, value, 'memory filter', "{ namespaces: ['agents/alice'], kinds: ['note'] }");
}
