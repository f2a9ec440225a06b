import { z } from 'zod';
import { searchModes } from '../../config/schema.js';
import { interactionOutcomes, memoryKinds } from '../../memory/spec.js';

export const searchBody = z.strictObject({
  query: z.string().min(1),
  topK: z.number().int().min(1).max(1000).optional(),
  mode: z.enum(searchModes).optional(),
  paths: z.array(z.string()).optional(),
  languages: z.array(z.string()).optional(),
  roles: z.array(z.string()).optional(),
  excludeRoles: z.array(z.string()).optional(),
  files: z.boolean().optional(),
  threshold: z.number().optional(),
  explain: z.boolean().optional(),
  root: z.string().optional(),
});
export const symbolBody = z.strictObject({
  name: z.string().min(1).max(200),
  topK: z.number().int().min(1).max(1000).optional(),
  paths: z.array(z.string()).optional(),
  languages: z.array(z.string()).optional(),
  roles: z.array(z.string()).optional(),
  excludeRoles: z.array(z.string()).optional(),
  root: z.string().optional(),
});
export const contextBody = z.strictObject({
  question: z.string().min(1),
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  tokenizer: z.string().optional(),
  include: z.array(z.string()).optional(),
  all: z.string().optional(),
  paths: z.array(z.string()).optional(),
  root: z.string().optional(),
});
export const recordBody = z.strictObject({
  namespace: z.string().min(1),
  text: z.string().min(1),
  kind: z.enum(memoryKinds as [string, ...string[]]).optional(),
  id: z.string().optional(),
  time: z.number().optional(),
  ttlMs: z.number().positive().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  dedupe: z.boolean().optional(),
  root: z.string().optional(),
});
export const recallBody = z.strictObject({
  query: z.string().min(1),
  namespaces: z.array(z.string()).optional(),
  topK: z.number().int().min(1).max(1000).optional(),
  kinds: z.array(z.enum(memoryKinds as [string, ...string[]])).optional(),
  outcome: z.enum(interactionOutcomes as [string, ...string[]]).optional(),
  /** Each hit's score broken down by signal (`explanation`). */
  explain: z.boolean().optional(),
  root: z.string().optional(),
});
export const updateBody = z.strictObject({ namespace: z.string().optional(), text: z.string().min(1).optional(), metadata: z.record(z.string(), z.unknown()).optional(), ttlMs: z.number().positive().nullable().optional() });

