import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { publicHistory, publicRecord } from '../../memory/public-record.js';
import { recordInputShape } from '../../memory/record-input.js';
import { interactionOutcomes, memoryKinds, recallModes, type InteractionFields, type MemoryRecord, type RecallOptions } from '../../memory/spec.js';
import type { Roots } from '../shared/roots.js';
import { boundedInt, guard, rootField, round, toolInput } from './mcp-guard.js';

/** remember, recall and conversation_history: the library's record model over MCP. */
export function registerMemoryTools(server: McpServer, roots: Roots): void {
  server.registerTool(
    'remember',
    {
      title: 'Remember something',
      description:
        'Stores a fact, decision, preference or outcome in long-term memory under a namespace (e.g. "user/alice", "project/loci", "agent/reviewer"), so later sessions can recall it. ' +
        'Near-identical notes in a namespace are merged when they agree; a note that contradicts an older one (another number, a negation, another name) is kept and recalled first. ' +
        'kind "interaction" logs a prompt with its response and outcome (success, error, cancelled); kind "turn" appends a dialog turn (conversationId, prompt = user query, response = reply) to a conversation.',
      inputSchema: toolInput({
        ...recordInputShape,
        text: z
          .string()
          .min(1)
          .max(100_000)
          .optional()
          .describe(recordInputShape.text.description ?? ''),
        root: rootField,
      }),
    },
    async ({ root, ...input }) =>
      guard(roots, async () => {
        const memory = await roots.get(root).loci.memory();
        const record = await memory.addRecord(Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)));
        const said = record.warnings ? ` (${record.warnings.join(' ')})` : '';
        return {
          content: [{ type: 'text', text: `${record.mergedCount > 0 ? 'Merged into' : 'Stored as'} ${record.namespace}/${record.id}.${said}` }],
          structuredContent: { id: record.id, namespace: record.namespace, merged: record.mergedCount > 0, record: publicRecord(record), ...(record.warnings ? { warnings: record.warnings } : {}) },
        };
      }),
  );

  server.registerTool(
    'recall',
    {
      title: 'Recall memories',
      description:
        'Searches long-term memory (keyword + semantic + recency) for records relevant to a query, within the given namespaces and those nested under them. ' +
        'Use it at the start of a task to find earlier decisions, preferences and outcomes. A namespace with nothing in it yet returns no records (not an error).',
      inputSchema: toolInput({
        query: z.string().min(1).describe('What to recall.'),
        namespaces: z.array(z.string()).optional().describe('Scopes to search, e.g. ["user/alice"]; default all.'),
        topK: boundedInt(1, 50).optional().describe('How many records (default 5).'),
        kinds: z
          .array(z.enum(memoryKinds as [string, ...string[]]))
          .optional()
          .describe('Only these kinds, e.g. ["interaction"].'),
        outcome: z
          .enum(interactionOutcomes as [string, ...string[]])
          .optional()
          .describe('Only logged interactions with this outcome.'),
        minSimilarity: z.number().min(-1).max(1).optional().describe('Only records at least this similar to the query (cosine, -1 to 1).'),
        mode: z
          .enum(recallModes as [string, ...string[]])
          .optional()
          .describe('hybrid (default), lexical, vector, or cosine (similarity alone).'),
        root: rootField,
      }),
    },
    async ({ query, namespaces, topK, kinds, outcome, minSimilarity, mode, root }) =>
      guard(roots, async () => {
        const memory = await roots.get(root).loci.memory();
        const options = Object.fromEntries(Object.entries({ namespaces, topK, kinds, outcome, minSimilarity, mode }).filter(([, value]) => value !== undefined)) as RecallOptions;
        const { hits, warnings, degraded, degradedParts } = await memory.recallResponse(query, options);
        // `time` stays an ISO string here (as it always was over MCP); the other fields are the record's own.
        const records = hits.map((hit) => ({ ...publicRecord(hit.record), time: new Date(hit.record.time).toISOString(), score: round(hit.score), signals: hit.signals }));
        const text =
          records.length === 0
            ? 'Nothing relevant remembered.'
            : hits.map((hit) => `- [${hit.record.namespace}] (${new Date(hit.record.time).toISOString().slice(0, 10)}) ${describe(hit.record)}`).join('\n');
        return { content: [{ type: 'text', text: warnings.length > 0 ? `${text}\n(${warnings.join(' ')})` : text }], structuredContent: { records, warnings, degraded, degradedParts } };
      }),
  );

  server.registerTool(
    'conversation_history',
    {
      title: 'Conversation history',
      description:
        'The turns of a conversation (stored with remember, kind "turn") that fit a token budget: the latest ones, then older ones relevant to the query, in conversation order. ' +
        'Use it to continue a conversation where it left off. An unknown conversation has no turns.',
      inputSchema: toolInput({
        conversationId: z.string().min(1).max(200).describe('The conversation.'),
        query: z.string().optional().describe('Keep older turns relevant to this after the latest ones.'),
        maxTokens: boundedInt(1, 200_000).optional().describe('Token budget (default 2000).'),
        namespace: z.string().optional().describe('Default conversations/<conversationId>.'),
        root: rootField,
      }),
    },
    async ({ conversationId, query, maxTokens, namespace, root }) =>
      guard(roots, async () => {
        const memory = await roots.get(root).loci.memory();
        const history = await memory.history({ conversationId, ...(maxTokens !== undefined ? { tokenBudget: maxTokens } : {}), ...(query ? { query } : {}), ...(namespace ? { namespace } : {}) });
        const text = history.turns.length === 0 ? 'No turns in this conversation yet.' : history.turns.map((turn) => turn.text).join('\n\n');
        return { content: [{ type: 'text', text }], structuredContent: { conversationId, ...publicHistory(history) } };
      }),
  );
}

/** One line a model can read: an interaction shows how it went. */
function describe(record: MemoryRecord): string {
  if (record.kind !== 'interaction' || !record.fields) return record.text;
  const fields = record.fields as InteractionFields;
  return `${fields.prompt} → ${fields.outcome}${fields.response ? `: ${fields.response.slice(0, 500)}` : ''}${fields.feedback ? ` (${fields.feedback.slice(0, 200)})` : ''}`;
}
