import { z } from 'zod';
import { checkKeys, checkObject } from '../errors/check-types.js';
import { LociError } from '../errors/index.js';
import { describeIssues } from '../errors/zod-issues.js';
import { conversationNamespace, pick, requireText } from './inputs.js';
import { searchableText } from './records.js';
import {
  interactionOutcomes,
  memoryKinds,
  type InteractionFields,
  type InteractionInput,
  type KnowledgeFields,
  type MemoryInput,
  type MemoryKind,
  type MemoryRecord,
  type TurnFields,
  type TurnInput,
} from './spec.js';

/** The typed fields of each kind, as stored in MemoryRecord.fields. */
export const turnFieldsSchema = z.strictObject({ conversationId: z.string().min(1).max(200), userQuery: z.string().min(1), assistantResponse: z.string() });
export const interactionFieldsSchema = z.strictObject({
  prompt: z.string().min(1),
  response: z.string(),
  outcome: z.enum(interactionOutcomes as [InteractionFields['outcome'], ...InteractionFields['outcome'][]]),
  feedback: z.string().optional(),
  multiStep: z.boolean().optional(),
});
export const knowledgeFieldsSchema = z.strictObject({ source: z.string().min(1).max(4096), headingPath: z.array(z.string().max(1000)).max(32) });
const fieldSchemas = { turn: turnFieldsSchema, interaction: interactionFieldsSchema, knowledge: knowledgeFieldsSchema } as const;

const kindEnum = z.enum(memoryKinds as [MemoryKind, ...MemoryKind[]]);
const outcomeEnum = z.enum(interactionOutcomes as [InteractionFields['outcome'], ...InteractionFields['outcome'][]]);

/**
 * The one record model every door accepts: the library (`Memory.addRecord`), HTTP
 * `POST /v1/memory/records`, MCP `remember` and `loci memory add`. Interactions and turns may
 * be given flat (prompt, response, outcome, feedback, multiStep, conversationId) or as
 * `fields` in their stored shape (an export's records); both become the same record.
 */
export const recordInputShape = {
  namespace: z.string().min(1).optional().describe('Slash-separated scope, e.g. "agent/boss" or "unity/session/42". Required, except for a turn (default conversations/<conversationId>).'),
  kind: kindEnum.optional().describe('note (default), interaction (a prompt with its outcome), turn (one dialog exchange) or knowledge.'),
  text: z.string().min(1).optional().describe('What to remember (notes, knowledge). For an interaction or a turn it is the prompt (user query) when prompt is not given.'),
  prompt: z.string().min(1).optional().describe('interaction: the command prompt; turn: the user query.'),
  response: z.string().optional().describe('interaction: the response (default ""); turn: the assistant reply (required).'),
  outcome: outcomeEnum.optional().describe('interaction: success (default), error or cancelled.'),
  feedback: z.string().optional().describe('interaction: feedback or the error message.'),
  multiStep: z.boolean().optional().describe('interaction: part of a multi-step plan.'),
  conversationId: z.string().min(1).max(200).optional().describe('turn: the conversation it belongs to (required).'),
  fields: z.union([turnFieldsSchema, interactionFieldsSchema, knowledgeFieldsSchema]).optional().describe("The kind's fields in their stored shape, instead of the flat ones."),
  id: z.string().min(1).max(200).optional().describe('Your id (must be new to the store); default generated.'),
  time: z.number().optional().describe('When it happened, epoch ms (default now).'),
  ttlMs: z.number().positive().optional().describe('Forget after this many ms from time.'),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Your JSON, kept with the record.'),
};
export const recordInputSchema = z.strictObject(recordInputShape);
export type RecordInput = z.infer<typeof recordInputSchema>;

const interactionOnly = ['outcome', 'feedback', 'multiStep'] as const;
const flatFields = ['prompt', 'response', 'outcome', 'feedback', 'multiStep', 'conversationId'] as const;

/** Validates a record input (any door) and turns it into what `Memory.add` stores. */
export function toMemoryInput(raw: unknown): MemoryInput {
  const parsed = recordInputSchema.safeParse(raw);
  if (!parsed.success) {
    throw new LociError('INVALID_ARGUMENT', `Invalid memory record: ${describeIssues(parsed.error.issues, '(record)')}.`);
  }
  const input = parsed.data;
  const kind = input.kind ?? 'note';
  const common = pick(input, ['id', 'time', 'ttlMs', 'metadata']) as Pick<MemoryInput, 'id' | 'time' | 'ttlMs' | 'metadata'>;
  const flat = flatFields.filter((name) => input[name] !== undefined);
  if (input.fields && flat.length > 0) throw invalid(`give the ${kind}'s fields either flat (${flat.join(', ')}) or as "fields", not both`);
  if (kind === 'interaction') {
    const fields = input.fields ? checkFields('interaction', input.fields) : undefined;
    if (input.conversationId !== undefined) throw invalid('conversationId belongs to a turn; an interaction has none');
    const prompt = fields?.prompt ?? input.prompt ?? input.text;
    if (prompt === undefined) throw invalid('an interaction needs a prompt (or text)');
    if (input.text !== undefined && input.text !== prompt) throw invalid('an interaction is searched by its prompt: give prompt or text, not two different ones');
    return interactionRecordInput({
      namespace: requireNamespace(input.namespace, kind),
      prompt,
      outcome: fields?.outcome ?? input.outcome ?? 'success',
      ...pick({ response: fields?.response ?? input.response, feedback: fields?.feedback ?? input.feedback, multiStep: fields?.multiStep ?? input.multiStep }, ['response', 'feedback', 'multiStep']),
      ...common,
    });
  }
  if (kind === 'turn') {
    const fields = input.fields ? checkFields('turn', input.fields) : undefined;
    const stray = interactionOnly.filter((name) => input[name] !== undefined);
    if (stray.length > 0) throw invalid(`${stray.join(', ')} belong to an interaction, not a turn`);
    const conversationId = fields?.conversationId ?? input.conversationId;
    const userQuery = fields?.userQuery ?? input.prompt ?? input.text;
    const assistantResponse = fields?.assistantResponse ?? input.response;
    if (conversationId === undefined || userQuery === undefined || assistantResponse === undefined) {
      throw invalid('a turn needs conversationId, the user query (prompt or text) and the assistant reply (response)');
    }
    if (input.prompt !== undefined && input.text !== undefined) throw invalid('a turn takes its user query as prompt or text, not both');
    return turnRecordInput({ conversationId, userQuery, assistantResponse, ...(input.namespace !== undefined ? { namespace: input.namespace } : {}), ...common });
  }
  if (flat.length > 0) throw invalid(`${flat.join(', ')} apply to kind interaction or turn; this record is a ${kind}`);
  const text = requireText(input.text, 'text');
  const fields = input.fields ? checkFields(kind, input.fields) : undefined;
  return { namespace: requireNamespace(input.namespace, kind), kind, text, ...(fields ? { fields } : {}), ...common };
}

const INTERACTION_KEYS = ['namespace', 'prompt', 'response', 'outcome', 'feedback', 'multiStep', 'id', 'time', 'ttlMs', 'metadata'] satisfies Array<keyof InteractionInput>;
const TURN_KEYS = ['conversationId', 'userQuery', 'assistantResponse', 'namespace', 'id', 'time', 'ttlMs', 'metadata'] satisfies Array<keyof TurnInput>;

/** An interaction as stored: searched by its prompt (the Unity seed embeds the prompt). */
export function interactionRecordInput(interaction: InteractionInput): MemoryInput {
  checkObject(interaction, 'interaction', "{ namespace: 'unity/session-1', prompt: 'add a jump', outcome: 'success' }");
  checkKeys(interaction, INTERACTION_KEYS, 'interaction', { shared: false });
  requireText(interaction.prompt, 'prompt');
  if (!interactionOutcomes.includes(interaction.outcome)) {
    throw new LociError('INVALID_ARGUMENT', `outcome must be one of ${interactionOutcomes.join(', ')}; got ${String(interaction.outcome)}.`);
  }
  const fields: InteractionFields = {
    prompt: interaction.prompt,
    response: interaction.response ?? '',
    outcome: interaction.outcome,
    ...(interaction.feedback !== undefined ? { feedback: interaction.feedback } : {}),
    ...(interaction.multiStep !== undefined ? { multiStep: interaction.multiStep } : {}),
  };
  return { namespace: interaction.namespace, kind: 'interaction', text: interaction.prompt, fields, ...pick(interaction, ['id', 'time', 'ttlMs', 'metadata']) };
}

/** A dialog turn as stored: searched by both sides, in conversations/<id> unless told otherwise. */
export function turnRecordInput(turn: TurnInput): MemoryInput {
  checkObject(turn, 'turn', "{ conversationId: 'chat-1', userQuery: 'hi', assistantResponse: 'hello' }");
  checkKeys(turn, TURN_KEYS, 'turn', { shared: false });
  requireText(turn.conversationId, 'conversationId');
  requireText(turn.userQuery, 'userQuery');
  if (typeof turn.assistantResponse !== 'string') throw new LociError('INVALID_ARGUMENT', 'assistantResponse must be a string.');
  const fields: TurnFields = { conversationId: turn.conversationId, userQuery: turn.userQuery, assistantResponse: turn.assistantResponse };
  return {
    namespace: turn.namespace ?? conversationNamespace(turn.conversationId),
    kind: 'turn',
    text: searchableText('turn', '', fields),
    fields,
    ...pick(turn, ['id', 'time', 'ttlMs', 'metadata']),
  };
}

/**
 * Fields given with a record must have its kind's shape (a note has none), so outcome
 * filters, history and export read every record the same way whoever wrote it.
 */
export function checkFields<K extends MemoryKind>(kind: K, fields: unknown): K extends 'turn' ? TurnFields : K extends 'interaction' ? InteractionFields : KnowledgeFields {
  if (kind === 'note') throw invalid('a note has no fields; use metadata for your own JSON');
  const result = fieldSchemas[kind as 'turn'].safeParse(fields);
  if (!result.success) {
    throw invalid(`fields of a ${kind}: ${describeIssues(result.error.issues, '(fields)')}`);
  }
  return result.data as never;
}

/** Whether a record may be stored with these fields and metadata (the check `Memory.add` runs). */
export function checkRecordFields(record: Pick<MemoryRecord, 'kind' | 'fields' | 'metadata'>): void {
  if (record.fields !== undefined) checkFields(record.kind, record.fields);
  if (record.metadata !== undefined) checkMetadata(record.metadata);
}

/**
 * Metadata is the caller's JSON object, stored and exported as JSON: an array, a BigInt or a
 * cycle is refused before anything is written (an array was stored, then its export could
 * not be imported back).
 */
export function checkMetadata(metadata: unknown): Record<string, unknown> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw invalid(`metadata must be a JSON object such as {"source": "chat"}; got ${Array.isArray(metadata) ? 'an array' : metadata === null ? 'null' : typeof metadata}`);
  }
  try {
    JSON.stringify(metadata);
  } catch (error) {
    throw invalid(`metadata is not JSON (${(error as Error).message})`);
  }
  return metadata as Record<string, unknown>;
}

function requireNamespace(namespace: string | undefined, kind: MemoryKind): string {
  if (namespace === undefined) throw invalid(`a ${kind} needs a namespace`);
  return namespace;
}

function invalid(message: string): LociError {
  return new LociError('INVALID_ARGUMENT', `Invalid memory record: ${message}.`);
}
