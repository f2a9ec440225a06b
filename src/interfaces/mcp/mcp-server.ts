import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { buildContext } from '../../context/build-context.js';
import { isLociError } from '../../errors/index.js';
import { interactionOutcomes, memoryKinds } from '../../memory/spec.js';
import { fileRoles } from '../../sources/file-role.js';
import { LOCI_VERSION } from '../../version.js';
import type { Roots } from '../shared/roots.js';
import { redactPaths } from '../shared/wire-paths.js';

const rootField = z.string().optional().describe('Which served project to use (its folder name); default the first one.');

/**
 * The loci MCP server: code search, packed context, memory and index status as tools.
 * Descriptions are written for the model that decides when to call them.
 */
export function createMcpServer(roots: Roots): McpServer {
  const server = new McpServer({ name: 'loci', version: LOCI_VERSION });

  server.registerTool(
    'search_code',
    {
      title: 'Search the codebase',
      description:
        'Hybrid (keyword + semantic) search over the indexed project. Use it to find where something is implemented, defined or documented before reading or changing code. ' +
        'Returns the best chunks with file path, line range and text. Name identifiers or paths exactly when you know them.',
      inputSchema: {
        query: z.string().min(1).describe('What to look for: a question, identifiers, or an error message.'),
        topK: z.number().int().min(1).max(50).optional().describe('How many results (default 8).'),
        paths: z.array(z.string()).optional().describe('Only paths matching these globs or under these folders, e.g. ["src/**/*.ts"].'),
        languages: z.array(z.string()).optional().describe('Only these languages or aliases, e.g. ["python"] or ["ts"].'),
        roles: z.array(z.enum(fileRoles)).optional().describe('Only files with these roles, e.g. ["test"] to find tests.'),
        excludeRoles: z.array(z.enum(fileRoles)).optional().describe('Leave out files with these roles, e.g. ["test", "example"].'),
        root: rootField,
      },
    },
    async ({ query, topK, paths, languages, roles, excludeRoles, root }) =>
      guard(roots, async () => {
        const response = await roots.get(root).loci.search(query, { topK: topK ?? 8, ...(paths ? { paths } : {}), ...(languages ? { languages } : {}), ...(roles ? { roles } : {}), ...(excludeRoles ? { excludeRoles } : {}) });
        const results = response.results.map((result) => ({ path: result.path, startLine: result.startLine, endLine: result.endLine, score: round(result.score), symbol: result.symbol, role: result.role, text: result.text }));
        const text = results.length === 0 ? 'No results.' : results.map((result, index) => `[${index + 1}] ${result.path}:${result.startLine}-${result.endLine}${result.symbol ? ` (${result.symbol})` : ''}\n${result.text}`).join('\n\n');
        return { content: [{ type: 'text', text }], structuredContent: { results, warnings: response.warnings, degraded: response.degraded } };
      }),
  );

  server.registerTool(
    'find_symbol',
    {
      title: 'Find where a symbol is defined',
      description:
        'Exact lookup of a function, class, method (Class.method), type or exported constant by name: returns only the chunks that define it, implementation before tests. ' +
        'Use it when you know the name; use search_code for questions.',
      inputSchema: {
        name: z.string().min(2).max(200).describe('The symbol, e.g. "nextTick", "Router.match" or "use-model".'),
        topK: z.number().int().min(1).max(50).optional().describe('How many definitions (default 5).'),
        excludeRoles: z.array(z.enum(fileRoles)).optional().describe('Leave out files with these roles, e.g. ["test"].'),
        root: rootField,
      },
    },
    async ({ name, topK, excludeRoles, root }) =>
      guard(roots, async () => {
        const response = await roots.get(root).loci.findSymbol(name, { topK: topK ?? 5, ...(excludeRoles ? { excludeRoles } : {}) });
        const results = response.results.map((result) => ({ path: result.path, startLine: result.startLine, endLine: result.endLine, symbol: result.symbol, role: result.role, text: result.text }));
        const text = results.length === 0 ? response.warnings.join(' ') || 'No definitions.' : results.map((result, index) => `[${index + 1}] ${result.path}:${result.startLine}-${result.endLine} (${result.symbol}${result.role && result.role !== 'implementation' ? `, ${result.role}` : ''})\n${result.text}`).join('\n\n');
        return { content: [{ type: 'text', text }], structuredContent: { results, warnings: response.warnings } };
      }),
  );

  server.registerTool(
    'get_context',
    {
      title: 'Build a packed context for a question',
      description:
        'Retrieves, ranks and packs the most relevant code for a question into a token budget, as numbered snippets with path:lines. ' +
        'Use it when you need enough surrounding code to answer a question about the project in one step. "@path" in the question includes that file whole.',
      inputSchema: {
        question: z.string().min(1).describe('The question to gather context for.'),
        maxTokens: z.number().int().min(100).max(200_000).optional().describe('Hard limit for the packed prompt (default 6000).'),
        root: rootField,
      },
    },
    async ({ question, maxTokens, root }) =>
      guard(roots, async () => {
        const built = await buildContext(roots.get(root).loci, question, { maxTokens: maxTokens ?? 6000 });
        const said = built.warnings.length > 0 ? `\n\n(${built.warnings.join(' ')})` : '';
        return { content: [{ type: 'text', text: `${built.prompt}${said}` }], structuredContent: { tokens: built.tokens, sources: built.sources, mode: built.mode, warnings: built.warnings, degraded: built.degraded } };
      }),
  );

  server.registerTool(
    'remember',
    {
      title: 'Remember something',
      description:
        'Stores a fact, decision, preference or outcome in long-term memory under a namespace (e.g. "user/alice", "project/loci", "agent/reviewer"), so later sessions can recall it. ' +
        'Near-identical notes in a namespace are merged when they agree; a note that contradicts an older one (another number, a negation, another name) is kept and recalled first.',
      inputSchema: {
        namespace: z.string().min(1).describe('Slash-separated scope, e.g. "user/alice" or "agent/boss/session/42".'),
        text: z.string().min(1).max(100_000).describe('What to remember, self-contained.'),
        kind: z.enum(memoryKinds as [string, ...string[]]).optional().describe('note (default) or knowledge.'),
        metadata: z.record(z.string(), z.unknown()).optional(),
        root: rootField,
      },
    },
    async ({ namespace, text, kind, metadata, root }) =>
      guard(roots, async () => {
        const memory = await roots.get(root).loci.memory();
        const record = await memory.add({ namespace, text, kind: (kind ?? 'note') as 'note', ...(metadata ? { metadata } : {}) });
        const said = record.warnings ? ` (${record.warnings.join(' ')})` : '';
        return {
          content: [{ type: 'text', text: `${record.mergedCount > 0 ? 'Merged into' : 'Stored as'} ${record.namespace}/${record.id}.${said}` }],
          structuredContent: { id: record.id, namespace: record.namespace, merged: record.mergedCount > 0, ...(record.warnings ? { warnings: record.warnings } : {}) },
        };
      }),
  );

  server.registerTool(
    'recall',
    {
      title: 'Recall memories',
      description:
        'Searches long-term memory (keyword + semantic + recency) for records relevant to a query, within the given namespaces and those nested under them. ' +
        'Use it at the start of a task to find earlier decisions, preferences and outcomes.',
      inputSchema: {
        query: z.string().min(1).describe('What to recall.'),
        namespaces: z.array(z.string()).optional().describe('Scopes to search, e.g. ["user/alice"]; default all.'),
        topK: z.number().int().min(1).max(50).optional().describe('How many records (default 5).'),
        outcome: z.enum(interactionOutcomes as [string, ...string[]]).optional().describe('Only logged interactions with this outcome.'),
        root: rootField,
      },
    },
    async ({ query, namespaces, topK, outcome, root }) =>
      guard(roots, async () => {
        const memory = await roots.get(root).loci.memory();
        const { hits, warnings, degraded } = await memory.recallResponse(query, { ...(namespaces ? { namespaces } : {}), ...(topK ? { topK } : {}), ...(outcome ? { outcome: outcome as 'success' } : {}) });
        // Stored times are checked on write and repaired on read; a repaired one carries warnings.
        const records = hits.map((hit) => ({ id: hit.record.id, namespace: hit.record.namespace, kind: hit.record.kind, text: hit.record.text, time: new Date(hit.record.time).toISOString(), score: round(hit.score), ...(hit.record.warnings ? { warnings: hit.record.warnings } : {}) }));
        const text = records.length === 0 ? 'Nothing relevant remembered.' : records.map((record) => `- [${record.namespace}] (${record.time.slice(0, 10)}) ${record.text}`).join('\n');
        return { content: [{ type: 'text', text: warnings.length > 0 ? `${text}\n(${warnings.join(' ')})` : text }], structuredContent: { records, warnings, degraded } };
      }),
  );

  server.registerTool(
    'index_status',
    {
      title: 'Index status',
      description: 'Reports what is indexed (files, chunks, embedder), whether indexing is running, and which files changed since they were indexed.',
      inputSchema: { root: rootField },
    },
    async ({ root }) =>
      guard(roots, async () => {
        const served = roots.get(root);
        const status = await served.loci.status();
        const summary = { root: served.name, path: served.path, files: status.files, chunks: status.chunks, embedder: status.embedder, indexing: served.indexing, changes: status.changes };
        return { content: [{ type: 'text', text: JSON.stringify(summary, null, 2) }], structuredContent: summary };
      }),
  );

  return server;
}

/**
 * A failing tool answers with isError and the error's message and hint, never a protocol
 * error. The one place MCP errors are put on the wire: no absolute paths of this machine.
 */
async function guard(roots: Roots, action: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await action();
  } catch (error) {
    const text = isLociError(error) ? `${error.code}: ${error.describe()}` : `Unexpected error: ${(error as Error).message}`;
    return { isError: true, content: [{ type: 'text', text: redactPaths(text, roots.list()) }] };
  }
}

function round(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}
