import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { buildContext } from '../../context/build-context.js';
import { fileRoles } from '../../sources/file-role.js';
import { LOCI_VERSION } from '../../version.js';
import type { Roots } from '../shared/roots.js';
import { boundedInt, guard, rootField, round, toolInput } from './mcp-guard.js';
import { registerKnowledgeTools } from './mcp-knowledge-tools.js';
import { registerMemoryTools } from './mcp-memory-tools.js';

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
      inputSchema: toolInput({
        query: z.string().min(1).describe('What to look for: a question, identifiers, or an error message.'),
        topK: boundedInt(1, 50).optional().describe('How many results (default 8).'),
        paths: z.array(z.string()).optional().describe('Only paths matching these globs or under these folders, e.g. ["src/**/*.ts"].'),
        languages: z.array(z.string()).optional().describe('Only these languages or aliases, e.g. ["python"] or ["ts"].'),
        roles: z.array(z.enum(fileRoles)).optional().describe('Only files with these roles, e.g. ["test"] to find tests.'),
        excludeRoles: z.array(z.enum(fileRoles)).optional().describe('Leave out files with these roles, e.g. ["test", "example"].'),
        minSimilarity: z.number().min(-1).max(1).optional().describe('Only results at least this similar to the query (cosine, -1 to 1).'),
        root: rootField,
      }),
    },
    // `extra.signal`: the client cancelled the call (notifications/cancelled) or went away; the work stops.
    async ({ query, topK, paths, languages, roles, excludeRoles, minSimilarity, root }, extra) =>
      guard(roots, async () => {
        const response = await roots.get(root).loci.search(query, {
          signal: extra.signal,
          topK: topK ?? 8,
          ...(paths ? { paths } : {}),
          ...(languages ? { languages } : {}),
          ...(roles ? { roles } : {}),
          ...(excludeRoles ? { excludeRoles } : {}),
          ...(minSimilarity !== undefined ? { minSimilarity } : {}),
        });
        const results = response.results.map((result) => ({
          path: result.path,
          startLine: result.startLine,
          endLine: result.endLine,
          score: round(result.score),
          symbol: result.symbol,
          role: result.role,
          text: result.text,
        }));
        const text =
          results.length === 0
            ? 'No results.'
            : results.map((result, index) => `[${index + 1}] ${result.path}:${result.startLine}-${result.endLine}${labelOf(result.symbol, result.role)}\n${result.text}`).join('\n\n');
        return {
          content: [{ type: 'text', text }],
          structuredContent: { results, retrieval: response.retrieval, warnings: response.warnings, degraded: response.degraded, degradedParts: response.degradedParts },
        };
      }),
  );

  server.registerTool(
    'find_symbol',
    {
      title: 'Find where a symbol is defined',
      description:
        'Exact lookup of a function, class, method (Class.method), type or exported constant by name: returns only the chunks that define it, implementation before tests. ' +
        'Use it when you know the name; use search_code for questions.',
      inputSchema: toolInput({
        name: z.string().min(1).max(200).describe('The symbol, e.g. "nextTick", "Router.match" or "use-model".'),
        topK: boundedInt(1, 50).optional().describe('How many definitions (default 5).'),
        roles: z.array(z.enum(fileRoles)).optional().describe('Only files with these roles, e.g. ["test"] for the tests that define it.'),
        excludeRoles: z.array(z.enum(fileRoles)).optional().describe('Leave out files with these roles, e.g. ["test"].'),
        root: rootField,
      }),
    },
    async ({ name, topK, roles, excludeRoles, root }) =>
      guard(roots, async () => {
        const response = await roots.get(root).loci.findSymbol(name, { topK: topK ?? 5, ...(roles ? { roles } : {}), ...(excludeRoles ? { excludeRoles } : {}) });
        const results = response.results.map((result) => ({ path: result.path, startLine: result.startLine, endLine: result.endLine, symbol: result.symbol, role: result.role, text: result.text }));
        const text =
          results.length === 0
            ? response.warnings.join(' ') || 'No definitions.'
            : results.map((result, index) => `[${index + 1}] ${result.path}:${result.startLine}-${result.endLine}${labelOf(result.symbol, result.role)}\n${result.text}`).join('\n\n');
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
      inputSchema: toolInput({
        question: z.string().min(1).describe('The question to gather context for.'),
        maxTokens: boundedInt(100, 200_000).optional().describe('Hard limit for the packed prompt (default 6000).'),
        conversationId: z.string().min(1).max(200).optional().describe('Add the budgeted history of this conversation (turns stored with remember, kind turn) to the prompt.'),
        historyTokens: boundedInt(1, 200_000).optional().describe('Tokens of history at most (default a quarter of maxTokens).'),
        conversationNamespace: z.string().min(1).max(500).optional().describe('Where the conversation’s turns are stored (default conversations/<conversationId>).'),
        minSimilarity: z.number().min(-1).max(1).optional().describe('Leave out code less similar than this to the question (cosine, -1 to 1).'),
        root: rootField,
      }),
    },
    async ({ question, maxTokens, conversationId, historyTokens, conversationNamespace, minSimilarity, root }, extra) =>
      guard(roots, async () => {
        const loci = roots.get(root).loci;
        const limit = maxTokens ?? 6000;
        const built = await buildContext(loci, question, {
          signal: extra.signal,
          maxTokens: limit,
          ...(conversationId !== undefined ? { conversationId } : {}),
          ...(historyTokens !== undefined ? { historyTokens } : {}),
          ...(conversationNamespace !== undefined ? { conversationNamespace } : {}),
          ...(minSimilarity !== undefined ? { minSimilarity } : {}),
        });
        const said = built.warnings.length > 0 ? `\n\n(${built.warnings.join(' ')})` : '';
        return {
          content: [{ type: 'text', text: `${built.prompt}${said}` }],
          structuredContent: { tokens: built.tokens, sources: built.sources, mode: built.mode, warnings: built.warnings, degraded: built.degraded, degradedParts: built.degradedParts },
        };
      }),
  );

  registerMemoryTools(server, roots);
  registerKnowledgeTools(server, roots);

  server.registerTool(
    'index_status',
    {
      title: 'Index status',
      description: 'Reports what is indexed (files, chunks, embedder), whether indexing is running, and which files changed since they were indexed.',
      inputSchema: toolInput({ root: rootField }),
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

/** ` (symbol, role)` after a result's location: the role only when the file is not implementation. */
function labelOf(symbol: string | undefined, role: string | undefined): string {
  const parts = [symbol, role && role !== 'implementation' ? role : undefined].filter((part): part is string => part !== undefined && part !== '');
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
