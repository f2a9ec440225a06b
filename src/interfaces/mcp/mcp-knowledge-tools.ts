import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { publicKnowledgeHit, publicKnowledgeStore, wireText } from '../shared/knowledge-wire.js';
import type { Roots } from '../shared/roots.js';
import { boundedInt, guard, rootField, round, toolInput } from './mcp-guard.js';

const agentField = z.string().min(1).max(200).describe('The agent whose knowledge store this is (e.g. "boss").');

/**
 * knowledge_load, knowledge_search, knowledge_list, knowledge_drop: the Go agent's per-agent
 * knowledge stores over MCP. A file is named relative to the served root and read by its
 * rules (never outside it, never a secrets file), as over HTTP.
 */
export function registerKnowledgeTools(server: McpServer, roots: Roots): void {
  const knowledgeOf = async (root: string | undefined) => (await roots.get(root).loci.memory()).knowledge;

  server.registerTool(
    'knowledge_load',
    {
      title: 'Load a knowledge store',
      description: "Load-or-create an agent's knowledge store from a markdown file inside the project (rebuilt when the file changes) or from markdown text; each section becomes a searchable entry.",
      inputSchema: toolInput({
        agent: agentField,
        path: z.string().min(1).max(4096).optional().describe('A markdown file, relative to the project root.'),
        markdown: z.string().max(5_000_000).optional().describe('The markdown itself, instead of a path.'),
        source: z.string().min(1).max(1024).optional().describe('Name for inline markdown (default inline.md).'),
        root: rootField,
      }),
    },
    async ({ agent, path, markdown, source, root }) =>
      guard(roots, async () => {
        const store = await (await knowledgeOf(root)).load(agent, {
          ...(path !== undefined ? { path, confined: true } : {}),
          ...(markdown !== undefined ? { markdown } : {}),
          ...(source !== undefined ? { source } : {}),
        });
        const summary = { agent, namespace: store.namespace, source: wireText(store.source, roots), sections: store.sections, rebuilt: store.rebuilt };
        return { content: [{ type: 'text', text: `${store.rebuilt ? 'Built' : 'Up to date:'} ${agent}'s knowledge from ${summary.source}: ${store.sections} sections.` }], structuredContent: summary };
      }),
  );

  server.registerTool(
    'knowledge_search',
    {
      title: 'Search a knowledge store',
      description: "Search an agent's knowledge store: sections at least `threshold` similar to the query (cosine, default 0.5), top `topK` (default 2); mode cosine orders by similarity alone.",
      inputSchema: toolInput({
        agent: agentField,
        query: z.string().min(1).describe('What to look up.'),
        threshold: z.number().min(-1).max(1).optional(),
        topK: boundedInt(1, 100).optional(),
        mode: z.enum(['hybrid', 'cosine']).optional(),
        root: rootField,
      }),
    },
    async ({ agent, query, threshold, topK, mode, root }) =>
      guard(roots, async () => {
        const report = await (await knowledgeOf(root)).search(agent, query, {
          ...(threshold !== undefined ? { threshold } : {}),
          ...(topK !== undefined ? { topK } : {}),
          ...(mode !== undefined ? { mode } : {}),
        });
        const results = report.results.map((hit) => ({ ...publicKnowledgeHit(hit, roots), score: round(hit.score) }));
        const warnings = report.warnings.map((warning) => wireText(warning, roots));
        const text = results.length === 0 ? 'No section is similar enough.' : report.results.map((hit) => `- (${round(hit.score)}) ${hit.record.text}`).join('\n\n');
        return {
          content: [{ type: 'text', text: warnings.length > 0 ? `${text}\n(${warnings.join(' ')})` : text }],
          structuredContent: { agent, namespace: report.namespace, results, rebuilt: report.rebuilt, warnings },
        };
      }),
  );

  server.registerTool(
    'knowledge_list',
    { title: 'List knowledge stores', description: 'The knowledge stores loaded, with their sources and sections.', inputSchema: toolInput({ root: rootField }) },
    async ({ root }) =>
      guard(roots, async () => {
        const stores = (await (await knowledgeOf(root)).list()).map((store) => publicKnowledgeStore(store, roots));
        return {
          content: [{ type: 'text', text: stores.length === 0 ? 'No knowledge stores.' : stores.map((store) => `- ${store.agent}: ${store.sections} sections`).join('\n') }],
          structuredContent: { stores },
        };
      }),
  );

  server.registerTool(
    'knowledge_drop',
    { title: 'Drop a knowledge store', description: "Delete an agent's knowledge store (its sections and sources).", inputSchema: toolInput({ agent: agentField, root: rootField }) },
    async ({ agent, root }) =>
      guard(roots, async () => {
        const dropped = await (await knowledgeOf(root)).drop(agent);
        return { content: [{ type: 'text', text: `Dropped ${dropped} sections of ${agent}'s knowledge.` }], structuredContent: { agent, dropped } };
      }),
  );
}
