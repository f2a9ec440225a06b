import { z } from 'zod';
import { LOCI_VERSION } from '../../version.js';
import { replies, responseComponents } from './response-schemas.js';
import { contextBody, forgetBody, knowledgeLoadBody, knowledgeSearchBody, recallBody, recordBody, searchBody, symbolBody, updateBody } from './schemas.js';

const error = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const json = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema: z.toJSONSchema(schema) } } });
const ok = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });
const responses = (description: string) => ({ 200: ok(description), 400: error, 401: error, 404: error, 413: error, 500: error });
const query = (name: string, description: string, required = false) => ({ name, in: 'query', required, schema: { type: 'string' }, description });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const agentParam = {
  name: 'agent',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$' },
  description: 'agent name: its store is namespace agents/<agent>/knowledge',
};
const reply = (description: string, schema: unknown) => ({ description, content: { 'application/json': { schema } } });
const typed = (description: string, schema: unknown, status = 200) => ({ [status]: reply(description, schema), 400: error, 401: error, 404: error, 413: error, 500: error });

/** The OpenAPI 3.1 document served at /openapi.json; request schemas come from the same zod schemas the server validates with. */
export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: { title: 'loci HTTP API', version: LOCI_VERSION, description: 'Search, context and memory over one loci engine. Bearer auth when the server was started with --token.' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ...responseComponents(),
        Error: {
          type: 'object',
          properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, hint: { type: 'string' } }, required: ['code', 'message'] } },
          required: ['error'],
        },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/health': { get: { summary: 'Liveness (no auth)', security: [], responses: { 200: ok('{"ok":true,"version","roots"}') } } },
      '/v1/search': {
        post: {
          summary: 'Hybrid search (an embedder that fails degrades it to lexical: "degraded":true, "degradedParts":["vector"] and a warning)',
          requestBody: json(searchBody),
          responses: responses('{"results":[{"path","startLine","endLine","score","text",…}],"warnings":[],"degraded":false,"degradedParts":[]}'),
        },
      },
      '/v1/symbols': {
        post: {
          summary: 'Where a symbol is defined (definitions only, implementation first)',
          requestBody: json(symbolBody),
          responses: responses('{"results":[{"path","startLine","endLine","score","symbol","role","text",…}],"warnings":[]}'),
        },
      },
      '/v1/context': {
        post: {
          summary: 'Packed prompt for a question',
          requestBody: json(contextBody),
          responses: responses('{"tokens","prompt","messages","sources","warnings":[],"degraded":false,"degradedParts":[] ("vector", "reranker", "file-pick": skipped after a failure)}'),
        },
      },
      '/v1/index': {
        post: {
          summary: 'Start indexing a root in the background',
          requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { root: { type: 'string' } } } } } },
          responses: { 202: ok('{"root","indexing"}'), 400: error, 401: error, 404: error },
        },
        get: { summary: 'Indexing state and counts', parameters: [query('root', 'served root name')], responses: responses('{"root","path","indexing","files","chunks","embedder"}') },
      },
      '/v1/memory/records': {
        post: {
          summary:
            'Add a record: a note, knowledge, an interaction (prompt, response, outcome, feedback, multiStep) or a turn (conversationId, prompt = user query, response = assistant reply). An id given must be new to the store (409 MEMORY_ID_CONFLICT otherwise).',
          requestBody: json(recordBody),
          responses: { ...typed('The stored record', replies.record, 201), 409: error },
        },
        get: {
          summary: 'List records, oldest first (an empty namespace lists nothing)',
          parameters: [
            query('namespace', 'repeatable'),
            query('kind', 'repeatable'),
            query('outcome', 'interactions with this outcome'),
            query('limit', 'max records'),
            query('root', 'served root name'),
          ],
          responses: typed('{"records":[…]}', replies.records),
        },
      },
      '/v1/memory/records/{id}': {
        get: { summary: 'Get a record', parameters: [idParam, query('namespace', 'faster lookup'), query('root', 'served root name')], responses: typed('{"record"}', replies.record) },
        patch: {
          summary: 'Update a record (a replaced text is kept in its versions)',
          parameters: [idParam, query('namespace', "only in this namespace (or the body's namespace; both must agree)"), query('root', 'served root name')],
          requestBody: json(updateBody),
          responses: { ...typed('{"record"}', replies.record), 409: error },
        },
        delete: {
          summary: 'Forget a record',
          parameters: [idParam, query('namespace', 'only in this namespace'), query('root', 'served root name')],
          responses: typed('{"forgotten":1}', replies.forgotten),
        },
      },
      '/v1/memory/recall': {
        post: {
          summary: 'Recall records (BM25 + vector + recency, or cosine alone with mode cosine). A namespace with no records answers 200 with no results.',
          requestBody: json(recallBody),
          responses: typed('{"results":[{…record,"score","signals"}],"warnings":[],"degraded":false,"degradedParts":[] ("vector": the embedder failed, recall was lexical)}', replies.hits),
        },
      },
      '/v1/memory/conversations/{id}/history': {
        get: {
          summary: "A conversation's turns within a token budget: the latest first, then older ones relevant to the query; in conversation order. An unknown conversation has no turns.",
          parameters: [
            { ...idParam, description: 'conversationId' },
            query('query', 'older turns relevant to this are kept after the latest ones'),
            query('maxTokens', 'token budget (default 2000)'),
            query('namespace', 'default conversations/<id>'),
            query('root', 'served root name'),
          ],
          responses: typed('{"conversationId","turns","messages","tokens","recentIds","relevantIds","omitted"}', replies.history),
        },
      },
      '/v1/knowledge': {
        get: { summary: 'The knowledge stores loaded, with their sources and sections', parameters: [query('root', 'served root name')], responses: typed('{"stores":[…]}', replies.stores) },
      },
      '/v1/knowledge/{agent}/load': {
        post: {
          summary:
            "Load-or-create an agent's knowledge store from a markdown file inside the served root (path; rebuilt when the file changes, checked before each search) or from markdown text (rebuilt when it differs)",
          parameters: [agentParam],
          requestBody: json(knowledgeLoadBody),
          responses: typed('{"agent","namespace","source","sections","rebuilt"}', replies.load),
        },
      },
      '/v1/knowledge/{agent}/search': {
        post: {
          summary: 'Search a knowledge store: sections at least `threshold` similar (cosine), top `topK`; mode cosine orders by cosine alone',
          parameters: [agentParam],
          requestBody: json(knowledgeSearchBody),
          responses: typed('{"agent","namespace","results":[…],"rebuilt","warnings"}', replies.search),
        },
      },
      '/v1/knowledge/{agent}': {
        delete: {
          summary: "Drop an agent's knowledge store (its sections and sources)",
          parameters: [agentParam, query('root', 'served root name')],
          responses: typed('{"agent","dropped"}', replies.dropped),
        },
      },
      '/v1/roots': { get: { summary: 'The served roots, by name, each with its indexing state', responses: responses('{"roots":[{"name","indexing"}]}') } },
      '/v1/index/details': {
        get: {
          summary: 'The index in detail: files, chunks, vectors, embedder, warnings, the last run (skips by reason), and files changed, added or deleted since (changes=0 skips that walk)',
          parameters: [query('root', 'served root name'), query('changes', '0: do not compare with the folder')],
          responses: responses(
            '{"root","indexed","indexing","files","chunks","vectors","embedder","warnings","running"?:{"since"},"interrupted"?:{"since"},"lastRun"?,"changes"?:{"modified","added","deleted","excluded"}}',
          ),
        },
      },
      '/v1/index/events': {
        get: {
          summary: "Server-sent events of the root's indexing: `progress` (done, total, filesPerSecond, etaSeconds) at most ten a second while it runs, then `end` (with the summary or the error)",
          parameters: [query('root', 'served root name')],
          responses: { 200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, 401: error, 404: error },
        },
      },
      '/v1/file': {
        get: {
          summary: 'One file of the index, read as includes are (inside the root, ignore and secret rules apply), cut at 1 MB',
          parameters: [query('path', 'path relative to the root, as search results give it', true), query('root', 'served root name')],
          responses: responses('{"path","language","text","truncated"}'),
        },
      },
      '/v1/repo-map': {
        get: {
          summary: 'The repository map (a line per file with its top-level symbols) within a token budget',
          parameters: [query('tokens', 'budget, 100 to 200000 (default 4000)'), query('root', 'served root name')],
          responses: responses('{"text","tokens","files","truncated"}'),
        },
      },
      '/v1/memory/namespaces': {
        get: { summary: 'Every namespace holding records, with its count', parameters: [query('root', 'served root name')], responses: responses('{"namespaces":[{"namespace","records"}]}') },
      },
      '/v1/memory/forget': {
        post: {
          summary: 'Forget the records a filter matches (all: true for every record); dryRun answers the count and up to 100 of them without deleting',
          requestBody: json(forgetBody),
          responses: responses('{"forgotten"} or, with dryRun, {"dryRun":true,"matched","records":[…]}'),
        },
      },
      '/v1/memory/export': {
        get: {
          summary: 'Export records as loci, unity (memory_log.json) or go-agent ({name}_vector_store.json)',
          parameters: [query('format', 'loci (default), unity or go-agent'), query('namespace', 'repeatable'), query('root', 'served root name')],
          responses: responses('the export'),
        },
      },
      '/mcp': { post: { summary: 'MCP over streamable HTTP (stateless, JSON responses; GET and DELETE answer 405)', responses: { 200: ok('JSON-RPC response') } } },
    },
  };
}
