import type { StoreCounts } from '../spec.js';
import type { PgSession } from './pg-session.js';

/** The file and chunk counts of a namespace (what a run's summary reports). */
export async function countRowsPg(session: PgSession, s: string): Promise<{ files: number; chunks: number }> {
  const [row] = await session.rows<Record<string, string>>(`SELECT (SELECT count(*) FROM ${s}.files) AS files, (SELECT count(*) FROM ${s}.chunks) AS chunks`);
  return { files: Number(row?.files ?? 0), chunks: Number(row?.chunks ?? 0) };
}

/** Every count `loci status` shows, the vectors of the namespace's embedder and the bytes of its tables included. */
export async function countsPg(session: PgSession, s: string, schema: string): Promise<StoreCounts> {
  const [row] = await session.rows<Record<string, string>>(
    `SELECT (SELECT count(*) FROM ${s}.files) AS files, (SELECT count(*) FROM ${s}.chunks) AS chunks,
       (SELECT count(*) FROM ${s}.chunks c JOIN ${s}.embeddings e ON e.content_hash = c.content_hash
          AND e.embedder = (SELECT value FROM ${s}.meta WHERE key = 'embedder')) AS vectors,
       (SELECT count(*) FROM ${s}.embeddings) AS cached,
       (SELECT coalesce(sum(pg_total_relation_size(k.oid)), 0) FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace
          WHERE n.nspname = $1 AND k.relkind = 'r') AS bytes`,
    [schema],
  );
  return {
    files: Number(row?.files ?? 0),
    chunks: Number(row?.chunks ?? 0),
    vectors: Number(row?.vectors ?? 0),
    cachedEmbeddings: Number(row?.cached ?? 0),
    bytesOnDisk: Number(row?.bytes ?? 0),
  };
}
