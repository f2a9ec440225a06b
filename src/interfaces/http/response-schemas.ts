import { z } from 'zod';
import { interactionFieldsSchema, knowledgeFieldsSchema, turnFieldsSchema } from '../../memory/record-input.js';
import { memoryKinds } from '../../memory/spec.js';

// What the memory and knowledge routes answer, for /openapi.json (clients are generated
// from it). The server builds replies with publicRecord/publicHit/publicHistory; the e2e
// tests check real replies against these shapes.

const version = z.object({ text: z.string(), fields: z.record(z.string(), z.unknown()).optional(), updatedAt: z.number(), replacedAt: z.number() });

export const memoryRecordSchema = z.object({
  id: z.string(),
  namespace: z.string(),
  kind: z.enum(memoryKinds as [string, ...string[]]),
  text: z.string().describe('What recall matches: a note’s text, an interaction’s prompt, a turn’s "User: …\\nAssistant: …".'),
  time: z.number().describe('When it happened, epoch ms.'),
  updatedAt: z.number(),
  expiresAt: z.number().optional(),
  mergedCount: z.number().int(),
  fields: z
    .union([interactionFieldsSchema, turnFieldsSchema, knowledgeFieldsSchema])
    .optional()
    .describe('interaction: {prompt, response, outcome, feedback?, multiStep?}; turn: {conversationId, userQuery, assistantResponse}; knowledge: {source, headingPath}.'),
  metadata: z.record(z.string(), z.unknown()).optional(),
  versions: z.array(version).optional(),
  conflictsWith: z.array(z.string()).optional(),
  warnings: z.array(z.string()).optional(),
});

const signals = z.object({
  lexical: z.number().optional(),
  vector: z.number().optional().describe('Cosine similarity to the query.'),
  recency: z.number().optional(),
  temporal: z.number().optional(),
  outcome: z.number().optional(),
  length: z.number().optional(),
  session: z.number().optional(),
  sessionHits: z.number().optional(),
  supersedes: z.number().optional(),
});

export const memoryHitSchema = memoryRecordSchema.extend({
  score: z.number(),
  signals,
  explanation: z.record(z.string(), z.object({ raw: z.number(), normalized: z.number(), weight: z.number(), contribution: z.number() })).optional(),
});

export const historySchema = z.object({
  conversationId: z.string(),
  turns: z.array(memoryRecordSchema).describe('The chosen turns, in conversation order.'),
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })).describe('The same turns as chat messages.'),
  tokens: z.number().int(),
  recentIds: z.array(z.string()),
  relevantIds: z.array(z.string()),
  omitted: z.number().int().describe('Turns of the conversation left out for the budget.'),
});

export const knowledgeStoreSchema = z.object({
  agent: z.string(),
  namespace: z.string(),
  sections: z.number().int(),
  sources: z.array(z.object({ name: z.string(), kind: z.enum(['file', 'text']), sections: z.number().int(), loadedAt: z.number().optional() })),
});

export const knowledgeLoadSchema = z.object({ agent: z.string(), namespace: z.string(), source: z.string(), sections: z.number().int(), rebuilt: z.boolean() });
export const knowledgeSearchSchema = z.object({ agent: z.string(), namespace: z.string(), results: z.array(memoryHitSchema), rebuilt: z.boolean(), warnings: z.array(z.string()) });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Component schemas for /openapi.json. */
export function responseComponents(): Record<string, unknown> {
  return {
    MemoryRecord: z.toJSONSchema(memoryRecordSchema),
    MemoryHit: z.toJSONSchema(memoryHitSchema),
    ConversationHistory: z.toJSONSchema(historySchema),
    KnowledgeStore: z.toJSONSchema(knowledgeStoreSchema),
    KnowledgeLoad: z.toJSONSchema(knowledgeLoadSchema),
    KnowledgeSearch: z.toJSONSchema(knowledgeSearchSchema),
  };
}

/** Reply bodies by component, `{"key": <component>}` wrappers and arrays. */
export const replies = {
  record: { type: 'object', properties: { record: ref('MemoryRecord') }, required: ['record'] },
  records: { type: 'object', properties: { records: { type: 'array', items: ref('MemoryRecord') } }, required: ['records'] },
  hits: { type: 'object', properties: { results: { type: 'array', items: ref('MemoryHit') } }, required: ['results'] },
  history: ref('ConversationHistory'),
  stores: { type: 'object', properties: { stores: { type: 'array', items: ref('KnowledgeStore') } }, required: ['stores'] },
  load: ref('KnowledgeLoad'),
  search: ref('KnowledgeSearch'),
  dropped: { type: 'object', properties: { agent: { type: 'string' }, dropped: { type: 'integer' } }, required: ['agent', 'dropped'] },
  forgotten: { type: 'object', properties: { forgotten: { type: 'integer' } }, required: ['forgotten'] },
} as const;
