import { win32 } from 'node:path';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { buildRepoMap } from '../../context/repo-map.js';
import { loadTokenCounter } from '../../context/tokenizer.js';
import { isLociError, LociError } from '../../errors/index.js';
import { exportFormats, formatExport, type ExportFormat } from '../../memory/export-formats.js';
import { publicRecord } from '../../memory/public-record.js';
import type { InteractionOutcome, MemoryKind } from '../../memory/spec.js';
import type { RootState, Roots } from '../shared/roots.js';
import { parseBody, queryInt, stripUndefined } from './request.js';
import { forgetBody } from './schemas.js';

/** Largest file `GET /v1/file` sends (bigger files are cut, and say so). */
const MAX_FILE_BYTES = 1024 * 1024;
/** Records a forget preview lists (the count is always whole). */
const PREVIEW_RECORDS = 100;
/** Longest an index event stream stays open without the run ending. */
const STREAM_LIMIT_MS = 30 * 60_000;

/**
 * What the console (and any client) needs to look inside: the index in detail and its
 * progress as server-sent events, a file of the index, the repo map, memory namespaces,
 * forget with a preview, and export. All read through the same guards as the rest.
 */
export function registerInspectRoutes(app: Hono, roots: Roots): void {
  app.get('/v1/roots', (c) => c.json({ roots: roots.list().map((root) => ({ name: root.name, indexing: publicIndexing(root.indexing) })) }));

  app.get('/v1/index/details', async (c) => {
    const root = roots.get(c.req.query('root'));
    const checkChanges = c.req.query('changes') !== '0';
    const status = await root.loci.status({ checkChanges }).catch((error: unknown) => {
      if (isLociError(error) && error.code === 'INDEX_NOT_FOUND') return undefined;
      throw error;
    });
    if (!status) return c.json({ root: root.name, indexed: false, indexing: publicIndexing(root.indexing) });
    // Where the index lives on this machine is not the caller's business: names, not paths.
    // A run under way is told by its start only: the machine's name and pids are not the caller's business.
    const { root: _path, store: _store, lastRun, running, interrupted, ...rest } = status;
    return c.json({
      root: root.name,
      indexed: true,
      indexing: publicIndexing(root.indexing),
      ...rest,
      ...(running ? { running: { since: running.since } } : {}),
      ...(interrupted ? { interrupted: { since: interrupted.since } } : {}),
      ...(lastRun ? { lastRun: withoutPaths(lastRun) } : {}),
    });
  });

  // Progress of the root's indexing as server-sent events: `progress` while it runs, then `end`.
  app.get('/v1/index/events', (c) => {
    const root = roots.get(c.req.query('root'));
    return streamSSE(c, async (stream) => {
      const send = (event: 'progress' | 'end', state: RootState['indexing']) => stream.writeSSE({ event, data: JSON.stringify(progressOf(state)) });
      if (!root.indexing.running) {
        await send('end', root.indexing);
        return;
      }
      await new Promise<void>((resolve) => {
        let last = 0;
        const finish = () => {
          unsubscribe();
          clearTimeout(limit);
          resolve();
        };
        const unsubscribe = roots.watchIndexing(root, (state) => {
          if (!state.running) {
            void send('end', state).finally(finish);
            return;
          }
          // At most ten events a second: a fast run over small files would flood the page.
          const now = Date.now();
          if (now - last < 100) return;
          last = now;
          void send('progress', state);
        });
        const limit = setTimeout(finish, STREAM_LIMIT_MS);
        limit.unref(); // an open stream never keeps a stopping server alive
        stream.onAbort(finish);
        void send('progress', root.indexing);
      });
    });
  });

  // One indexed file, read through the safe reader (inside the root, ignore and secret rules apply).
  app.get('/v1/file', async (c) => {
    const root = roots.get(c.req.query('root'));
    const path = c.req.query('path');
    if (!path) throw new LociError('INVALID_ARGUMENT', 'The query parameter path is required.', { hint: 'Pass path=src/a.ts: the path relative to the root, as search results give it.' });
    // Paths here are the index's own (relative to the root, which a caller is not told): an absolute one never matches.
    // (win32's test also takes a leading `/`: POSIX absolute paths, drive letters and UNC shares alike.)
    if (win32.isAbsolute(path)) {
      throw new LociError('INVALID_ARGUMENT', 'path must be relative to the indexed root, not absolute.', { hint: 'Pass the path as search results give it, relative to the root (path=src/a.ts).' });
    }
    const indexed = (await root.loci.files()).find((file) => file.path === path);
    if (!indexed) throw new LociError('FILE_NOT_FOUND', `"${path.slice(0, 200)}" is not a file of this index.`, { hint: 'Use a path from a search result.' });
    const file = await root.loci.sourceReader({ budgetBytes: MAX_FILE_BYTES * 4 }).read(path);
    const truncated = file.text.length > MAX_FILE_BYTES;
    // The file's definitions as the index knows them: the neighbours a chunk sits between.
    const symbols = (await root.loci.outline()).find((entry) => entry.path === indexed.path)?.symbols ?? [];
    return c.json({ path: indexed.path, language: indexed.language, text: truncated ? file.text.slice(0, MAX_FILE_BYTES) : file.text, truncated, symbols });
  });

  app.get('/v1/repo-map', async (c) => {
    const root = roots.get(c.req.query('root'));
    const tokens = queryInt(c.req.query('tokens'), 'tokens', 100, 200_000) ?? 4000;
    const counter = await loadTokenCounter('o200k');
    const map = buildRepoMap({ files: await root.loci.files(), outline: await root.loci.outline() }, tokens, (text) => counter.count(text));
    return c.json({ text: map.text, tokens: map.size, files: map.files, truncated: map.truncated });
  });

  app.get('/v1/memory/namespaces', async (c) => {
    const memory = await roots.get(c.req.query('root')).loci.memory();
    return c.json({ namespaces: await memory.namespaces() });
  });

  app.post('/v1/memory/forget', async (c) => {
    const { root, dryRun, all, ...filter } = await parseBody(c, forgetBody);
    const memory = await roots.get(root).loci.memory();
    const restricts = Boolean(filter.ids?.length || filter.namespaces?.length || filter.kinds?.length || filter.before !== undefined || filter.outcome);
    if (!restricts && !all) {
      throw new LociError('INVALID_ARGUMENT', 'forget needs a filter (ids, namespaces, kinds, before or outcome).', { hint: 'Send "all": true to forget every record.' });
    }
    const typed = stripUndefined({ ...filter, kinds: filter.kinds as MemoryKind[] | undefined, outcome: filter.outcome as InteractionOutcome | undefined });
    if (dryRun) {
      const matched = await memory.list({ ...typed, includeExpired: true });
      return c.json({ dryRun: true, matched: matched.length, records: matched.slice(0, PREVIEW_RECORDS).map(publicRecord) });
    }
    return c.json({ forgotten: await memory.forget({ ...typed, ...(all ? { all } : {}) }) });
  });

  app.get('/v1/memory/export', async (c) => {
    const memory = await roots.get(c.req.query('root')).loci.memory();
    const format = c.req.query('format') ?? 'loci';
    if (!(exportFormats as readonly string[]).includes(format)) throw new LociError('INVALID_ARGUMENT', `format must be one of ${exportFormats.join(', ')}; got "${format.slice(0, 40)}".`);
    const namespaces = c.req.queries('namespace');
    const formatted = formatExport(await memory.export(namespaces ? { namespaces } : {}), format as ExportFormat);
    c.header('content-disposition', `attachment; filename="loci-memory-${format}.json"`);
    return c.json(formatted.data);
  });
}

function withoutPaths<T extends { root: string; store: string }>(summary: T): Omit<T, 'root' | 'store'> {
  const { root: _root, store: _store, ...rest } = summary;
  return rest;
}

function publicIndexing(state: RootState['indexing']) {
  const { summary, ...rest } = state;
  return { ...rest, ...(summary ? { summary: withoutPaths(summary) } : {}) };
}

const ETA_AFTER_MS = 3_000;

function progressOf(state: RootState['indexing']) {
  const elapsedMs = (state.finishedAt ?? Date.now()) - (state.startedAt ?? Date.now());
  const done = state.done ?? 0;
  const total = state.total ?? 0;
  const filesPerSecond = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  // The first seconds (start-up, grammars) say little about the rest: no ETA before ETA_AFTER_MS (a 1 s run once said 90 s).
  const etaSeconds = state.running && elapsedMs >= ETA_AFTER_MS && filesPerSecond > 0 && total >= done ? (total - done) / filesPerSecond : undefined;
  return { ...publicIndexing(state), elapsedMs, filesPerSecond, ...(etaSeconds !== undefined ? { etaSeconds } : {}) };
}
