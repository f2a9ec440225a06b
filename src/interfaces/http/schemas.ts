import { z } from 'zod';
import { searchModes } from '../../config/schema.js';
import { recordInputShape } from '../../memory/record-input.js';
import { interactionOutcomes, MAX_RECALL_TOP_K, memoryKinds, recallModes } from '../../memory/spec.js';

// Queries are not refused here when empty: the engine's QUERY_EMPTY says so the same way for "" and "  ".
export const searchBody = z.strictObject({
  query: z.string(),
  topK: z.number().int().min(1).max(1000).optional(),
  mode: z.enum(searchModes).optional(),
  paths: z.array(z.string()).optional(),
  languages: z.array(z.string()).optional(),
  roles: z.array(z.string()).optional(),
  excludeRoles: z.array(z.string()).optional(),
  files: z.boolean().optional(),
  threshold: z.number().optional().describe("Drop results whose score is below this; the score's scale depends on the mode (hybrid 0–1, lexical BM25, vector cosine)."),
  minSimilarity: z.number().min(-1).max(1).optional().describe('Absolute cosine similarity floor (−1 to 1), whatever the mode.'),
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
  question: z.string(),
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  tokenizer: z.string().optional(),
  include: z.array(z.string()).optional(),
  all: z.string().optional(),
  paths: z.array(z.string()).optional(),
  threshold: z.number().optional().describe("Retrieved chunks scoring below this are not sent (the score's scale depends on the mode)."),
  minSimilarity: z.number().min(-1).max(1).optional().describe('Retrieved chunks less similar than this to the question (cosine, −1 to 1) are not sent.'),
  conversationId: z.string().min(1).max(200).optional().describe('Put the budgeted history of this conversation (its turns in memory) into the prompt, as `loci ask` does.'),
  historyTokens: z.number().int().min(1).max(1_000_000).optional().describe('Tokens of history at most (default a quarter of maxTokens).'),
  conversationNamespace: z.string().min(1).max(500).optional().describe('Where the conversation’s turns are stored (default conversations/<conversationId>).'),
  root: z.string().optional(),
});
/** The library's record model (record-input.ts), plus how to store it. */
export const recordBody = z.strictObject({
  ...recordInputShape,
  dedupe: z.boolean().optional().describe('Merge a near-identical note into an agreeing one (default true; interactions and turns are never merged).'),
  root: z.string().optional(),
});
export const recallBody = z.strictObject({
  query: z.string(),
  namespaces: z.array(z.string()).optional(),
  topK: z.number().int().min(1).max(MAX_RECALL_TOP_K).optional(),
  kinds: z.array(z.enum(memoryKinds as [string, ...string[]])).optional(),
  outcome: z.enum(interactionOutcomes as [string, ...string[]]).optional(),
  minSimilarity: z.number().min(-1).max(1).optional().describe('Drop hits less similar than this to the query (cosine, −1 to 1; needs vectors).'),
  mode: z
    .enum(recallModes as [string, ...string[]])
    .optional()
    .describe('hybrid (default), lexical, vector, or cosine (cosine similarity alone, best first, as the Go agent orders).'),
  since: z.number().optional().describe('Only records at or after this time (epoch ms).'),
  until: z.number().optional().describe('Only records at or before this time (epoch ms).'),
  explain: z.boolean().optional().describe("Each hit's score broken down by signal (`explanation`)."),
  root: z.string().optional(),
});
export const updateBody = z.strictObject({
  namespace: z.string().optional(),
  text: z.string().min(1).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  ttlMs: z.number().positive().nullable().optional(),
});

const agentKnowledge = {
  threshold: z.number().min(-1).max(1).optional().describe('Minimum cosine similarity (default 0.5, config memory.knowledgeThreshold).'),
  topK: z.number().int().min(1).max(100).optional().describe('Results at most (default 2, config memory.knowledgeTopK).'),
  mode: z.enum(['hybrid', 'cosine']).optional().describe('hybrid (default: relevance among sections above the threshold) or cosine (cosine similarity alone, best first, as the Go agent orders).'),
};
/** Load-or-create a knowledge store: a markdown file inside the served root, or the markdown itself. */
export const knowledgeLoadBody = z.strictObject({
  path: z.string().min(1).max(4096).optional().describe('A markdown file inside the served root (relative to it); rebuilt when it changes.'),
  markdown: z.string().optional().describe('The markdown itself, instead of a path; loading it again with other content rebuilds the store.'),
  source: z.string().min(1).max(1024).optional().describe('Name of the markdown given inline (default inline.md).'),
  root: z.string().optional(),
});
export const knowledgeSearchBody = z.strictObject({
  query: z.string(),
  ...agentKnowledge,
  root: z.string().optional(),
});

/** Forget by filter; `dryRun` answers what would be deleted without deleting (the console's confirmation). */
export const forgetBody = z.strictObject({
  ids: z.array(z.string().min(1)).max(10_000).optional(),
  namespaces: z.array(z.string()).optional(),
  kinds: z.array(z.enum(memoryKinds as [string, ...string[]])).optional(),
  outcome: z.enum(interactionOutcomes as [string, ...string[]]).optional(),
  before: z.number().optional().describe('Records whose time is before this (epoch ms).'),
  all: z.boolean().optional().describe('Forget every record (needed when no other filter is given).'),
  dryRun: z.boolean().optional().describe('Answer which records match (up to 100, and the count) without deleting anything.'),
  root: z.string().optional(),
});
