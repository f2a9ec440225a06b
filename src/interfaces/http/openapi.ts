import { z } from 'zod';
import { LOCI_VERSION } from '../../version.js';
import { contextBody, recallBody, recordBody, searchBody, symbolBody, updateBody } from './schemas.js';

const error = { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const json = (schema: z.ZodType) => ({ required: true, content: { 'application/json': { schema: z.toJSONSchema(schema) } } });
const ok = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });
const responses = (description: string) => ({ 200: ok(description), 400: error, 401: error, 404: error, 413: error, 500: error });
const query = (name: string, description: string, required = false) => ({ name, in: 'query', required, schema: { type: 'string' }, description });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

/** The OpenAPI 3.1 document served at /openapi.json; request schemas come from the same zod schemas the server validates with. */
export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: { title: 'loci HTTP API', version: LOCI_VERSION, description: 'Search, context and memory over one loci engine. Bearer auth when the server was started with --token.' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, hint: { type: 'string' } }, required: ['code', 'message'] } }, required: ['error'] } },
    },
    security: [{ bearer: [] }],
    paths: {
      '/health': { get: { summary: 'Liveness (no auth)', security: [], responses: { 200: ok('{"ok":true,"version","roots"}') } } },
      '/v1/search': { post: { summary: 'Hybrid search (an embedder that fails degrades it to lexical: "degraded":["vector"] and a warning)', requestBody: json(searchBody), responses: responses('{"results":[{"path","startLine","endLine","score","text",…}],"warnings":[],"degraded":[]}') } },
      '/v1/symbols': { post: { summary: 'Where a symbol is defined (definitions only, implementation first)', requestBody: json(symbolBody), responses: responses('{"results":[{"path","startLine","endLine","score","symbol","role","text",…}],"warnings":[]}') } },
      '/v1/context': { post: { summary: 'Packed prompt for a question', requestBody: json(contextBody), responses: responses('{"tokens","prompt","messages","sources","warnings":[],"degraded":[] ("vector", "reranker", "file-pick": skipped after a failure)}') } },
      '/v1/index': {
        post: { summary: 'Start indexing a root in the background', requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { root: { type: 'string' } } } } } }, responses: { 202: ok('{"root","indexing"}'), 400: error, 401: error, 404: error } },
        get: { summary: 'Indexing state and counts', parameters: [query('root', 'served root name')], responses: responses('{"root","path","indexing","files","chunks","embedder"}') },
      },
      '/v1/memory/records': {
        post: { summary: 'Add a memory record (an id given must be new to the store: 409 MEMORY_ID_CONFLICT otherwise)', requestBody: json(recordBody), responses: { 201: ok('{"record"}'), 400: error, 401: error, 409: error, 413: error } },
        get: { summary: 'List records', parameters: [query('namespace', 'repeatable'), query('kind', 'repeatable'), query('limit', 'max records'), query('root', 'served root name')], responses: responses('{"records":[…]}') },
      },
      '/v1/memory/records/{id}': {
        get: { summary: 'Get a record', parameters: [idParam, query('namespace', 'faster lookup'), query('root', 'served root name')], responses: responses('{"record"}') },
        patch: { summary: 'Update a record (a replaced text is kept in its versions)', parameters: [idParam, query('root', 'served root name')], requestBody: json(updateBody), responses: { ...responses('{"record"}'), 409: error } },
        delete: { summary: 'Forget a record', parameters: [idParam, query('namespace', 'only in this namespace'), query('root', 'served root name')], responses: responses('{"forgotten":1}') },
      },
      '/v1/memory/recall': { post: { summary: 'Recall records (BM25 + vector + recency)', requestBody: json(recallBody), responses: responses('{"results":[{…record,"score","signals"}],"warnings":[],"degraded":[] ("vector": the embedder failed, recall was lexical)}') } },
      '/mcp': { post: { summary: 'MCP over streamable HTTP (stateless, JSON responses)', responses: { 200: ok('JSON-RPC response') } } },
    },
  };
}
