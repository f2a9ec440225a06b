import type { Hono } from 'hono';
import { publicKnowledgeHit, publicKnowledgeStore, wireText } from '../shared/knowledge-wire.js';
import type { Roots } from '../shared/roots.js';
import { parseBody, stripUndefined } from './request.js';
import { knowledgeLoadBody, knowledgeSearchBody } from './schemas.js';

/**
 * `/v1/knowledge/…`: per-agent knowledge stores built from markdown (the Go agent's
 * `{name}_vector_store.json`). A file is named relative to the served root and read by its
 * rules (never outside it, never a secrets file); or the markdown is sent as text.
 */
export function registerKnowledgeRoutes(app: Hono, roots: Roots): void {
  const knowledgeOf = async (root: string | undefined) => (await roots.get(root).loci.memory()).knowledge;

  app.get('/v1/knowledge', async (c) => {
    const stores = await (await knowledgeOf(c.req.query('root'))).list();
    return c.json({ stores: stores.map((store) => publicKnowledgeStore(store, roots)) });
  });
  app.post('/v1/knowledge/:agent/load', async (c) => {
    const { root, path, markdown, source } = await parseBody(c, knowledgeLoadBody);
    const agent = c.req.param('agent');
    const store = await (await knowledgeOf(root)).load(agent, stripUndefined({ path, markdown, source, confined: path !== undefined ? true : undefined }));
    return c.json({ agent, namespace: store.namespace, source: wireText(store.source, roots), sections: store.sections, rebuilt: store.rebuilt });
  });
  app.post('/v1/knowledge/:agent/search', async (c) => {
    const { root, query, ...options } = await parseBody(c, knowledgeSearchBody);
    const report = await (await knowledgeOf(root)).search(c.req.param('agent'), query, stripUndefined(options));
    return c.json({
      agent: report.agent,
      namespace: report.namespace,
      results: report.results.map((hit) => publicKnowledgeHit(hit, roots)),
      rebuilt: report.rebuilt,
      warnings: report.warnings.map((warning) => wireText(warning, roots)),
    });
  });
  app.delete('/v1/knowledge/:agent', async (c) => {
    const agent = c.req.param('agent');
    const dropped = await (await knowledgeOf(c.req.query('root'))).drop(agent);
    return c.json({ agent, dropped });
  });
}
