import type { PgClient } from './connection.js';
import type { PgSession } from './pg-session.js';
import { pgText } from './pg-values.js';

/**
 * Named state in a Postgres store's `meta` table (keys `state:<name>`). `s` is the quoted
 * schema. Writes go through the session's write transaction, which first takes the
 * namespace's advisory lock: an update is a compare-and-set no other writer interleaves with.
 */
export async function setMetaPg(client: PgClient, s: string, key: string, value: string): Promise<void> {
  await client.query(`INSERT INTO ${s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, value]);
}

export async function updateStatePg(session: PgSession, s: string, key: string, update: (current: string | undefined) => string | undefined): Promise<string | undefined> {
  return session.write(async (client) => {
    const current = (await client.query<{ value: string }>(`SELECT value FROM ${s}.meta WHERE key = $1`, [`state:${key}`])).rows[0]?.value;
    const next = update(current);
    if (next === undefined) return current;
    await setMetaPg(client, s, `state:${key}`, pgText(next));
    return next;
  });
}

export async function listStatePg(session: PgSession, s: string): Promise<Array<[string, string]>> {
  const rows = await session.rows<{ key: string; value: string }>(`SELECT key, value FROM ${s}.meta WHERE starts_with(key, 'state:') ORDER BY key COLLATE "C"`);
  return rows.map((row) => [row.key.slice('state:'.length), row.value]);
}
