import type { Hono } from 'hono';
import { LociError } from '../../errors/index.js';
import type { Memory } from '../../memory/memory.js';
import { publicHistory, publicHit, publicRecord } from '../../memory/public-record.js';
import { DEFAULT_HISTORY_TOKENS, interactionOutcomes, memoryKinds, type InteractionOutcome, type MemoryKind, type RecallOptions } from '../../memory/spec.js';
import type { Roots } from '../shared/roots.js';
import { parseBody, queryInt, stripUndefined } from './request.js';
import { recallBody, recordBody, updateBody } from './schemas.js';

/** Default history budget of GET …/history when maxTokens is not given. */

/** `/v1/memory/…`: records in the library's one model, recall and conversation history. */
export function registerMemoryRoutes(app: Hono, roots: Roots): void {
  const memoryOf = (root: string | undefined): Promise<Memory> => roots.get(root).loci.memory();

  app.post('/v1/memory/records', async (c) => {
    const { root, dedupe, ...input } = await parseBody(c, recordBody);
    const memory = await memoryOf(root);
    const record = await memory.addRecord(stripUndefined(input), dedupe === undefined ? {} : { dedupe });
    return c.json({ record: publicRecord(record) }, 201);
  });
  app.get('/v1/memory/records', async (c) => {
    const memory = await memoryOf(c.req.query('root'));
    const namespaces = c.req.queries('namespace');
    const kinds = c.req.queries('kind');
    const outcome = c.req.query('outcome');
    const limit = c.req.query('limit');
    if (kinds?.some((kind) => !(memoryKinds as readonly string[]).includes(kind))) throw new LociError('INVALID_ARGUMENT', `kind must be one of ${memoryKinds.join(', ')}.`);
    if (outcome !== undefined && !(interactionOutcomes as readonly string[]).includes(outcome)) throw new LociError('INVALID_ARGUMENT', `outcome must be one of ${interactionOutcomes.join(', ')}.`);
    if (limit !== undefined && !/^\d+$/.test(limit)) throw new LociError('INVALID_ARGUMENT', `limit must be a positive integer; got "${limit}".`);
    const records = await memory.list({
      ...(namespaces ? { namespaces } : {}),
      ...(kinds ? { kinds: kinds as MemoryKind[] } : {}),
      ...(outcome ? { outcome: outcome as InteractionOutcome } : {}),
      ...(limit ? { limit: Number(limit) } : {}),
    });
    return c.json({ records: records.map(publicRecord) });
  });
  app.get('/v1/memory/records/:id', async (c) => {
    const memory = await memoryOf(c.req.query('root'));
    const record = await memory.get(c.req.param('id'), c.req.query('namespace'));
    if (!record) throw new LociError('RECORD_NOT_FOUND', `No memory record with id ${c.req.param('id')}.`);
    return c.json({ record: publicRecord(record) });
  });
  app.patch('/v1/memory/records/:id', async (c) => {
    const patch = await parseBody(c, updateBody);
    // The namespace may come as ?namespace= (as GET and DELETE take it) or in the body; both must agree.
    const namespace = c.req.query('namespace');
    if (namespace !== undefined && patch.namespace !== undefined && namespace !== patch.namespace) {
      throw new LociError('INVALID_ARGUMENT', `The query names namespace "${namespace.slice(0, 200)}" and the body "${patch.namespace.slice(0, 200)}".`, {
        hint: 'Give the namespace once, in the query or the body.',
      });
    }
    const memory = await memoryOf(c.req.query('root'));
    const scoped = namespace === undefined ? patch : { ...patch, namespace };
    return c.json({ record: publicRecord(await memory.update(c.req.param('id'), stripUndefined(scoped) as Parameters<Memory['update']>[1])) });
  });
  app.delete('/v1/memory/records/:id', async (c) => {
    const memory = await memoryOf(c.req.query('root'));
    const namespace = c.req.query('namespace');
    const forgotten = await memory.forget({ ids: [c.req.param('id')], ...(namespace ? { namespaces: [namespace] } : {}) });
    if (forgotten === 0) throw new LociError('RECORD_NOT_FOUND', `No memory record with id ${c.req.param('id')}.`);
    return c.json({ forgotten });
  });
  // An empty or unknown (well-formed) namespace answers 200 with no results: a new session's first recall.
  app.post('/v1/memory/recall', async (c) => {
    const { root, query, ...rest } = await parseBody(c, recallBody);
    const memory = await memoryOf(root);
    const { hits, warnings, degraded, degradedParts } = await memory.recallResponse(query, stripUndefined(rest) as RecallOptions);
    return c.json({ results: hits.map(publicHit), warnings, degraded, degradedParts });
  });
  app.get('/v1/memory/conversations/:id/history', async (c) => {
    const memory = await memoryOf(c.req.query('root'));
    const conversationId = c.req.param('id');
    const query = c.req.query('query');
    const namespace = c.req.query('namespace');
    const tokenBudget = queryInt(c.req.query('maxTokens'), 'maxTokens', 1, 1_000_000) ?? DEFAULT_HISTORY_TOKENS;
    const history = await memory.history({ conversationId, tokenBudget, ...(query ? { query } : {}), ...(namespace ? { namespace } : {}) });
    return c.json({ conversationId, ...publicHistory(history) });
  });
}
