import { basename, dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { LociError } from '../../errors/index.js';
import { MEMORY_DATABASE } from '../file-names.js';

/** memory.db holds what agents wrote; it cannot be rebuilt from the folder like index.db. */

/**
 * The error for a damaged database, saying exactly what is safe to do: an index is rebuilt
 * from the folder (its vector-graph caches go with it, their row ids would not match), a
 * memory database is not rebuildable, so its readable records are saved first.
 */
export function damagedStoreError(file: string, detail: string, cause?: unknown): LociError {
  const folder = dirname(file);
  const name = basename(file);
  const memory = name === MEMORY_DATABASE;
  const hint = memory
    ? `Memory cannot be rebuilt from the folder: copy ${folder} somewhere safe, save what is still readable with \`loci memory export\`, then move ${name} (with ${name}-wal and ${name}-shm) out of ${folder}; the index (index.db) is a separate database.`
    : `Rebuild it: move ${name}, ${name}-wal, ${name}-shm and the vectors-*.hnsw* caches out of ${folder}, then run \`loci index\` again. memory.db in that folder is a separate database and is not affected (\`loci doctor\` checks it).`;
  return new LociError('STORE_CORRUPT', `The ${memory ? 'memory store' : 'index'} at ${file} is damaged (${detail}).`, {
    ...(cause === undefined ? {} : { cause }),
    details: { file, detail },
    hint,
  });
}

/**
 * PRAGMA quick_check: every page and b-tree is well-formed (not index/table agreement,
 * which the full integrity_check of `loci doctor` adds). Throws STORE_CORRUPT when not.
 */
export function assertQuickCheck(db: Database.Database, file: string): void {
  // One read transaction: the refreshed FTS5 structure and the check see the same snapshot
  // (between two transactions another process may commit, and the cache is stale again).
  const problems = db.transaction(() => {
    refreshFullTextTables(db);
    return db.pragma('quick_check(3)', { simple: false }) as Array<{ quick_check: string }>;
  })();
  const lines = problems.map((row) => row.quick_check).filter((line) => line !== 'ok');
  if (lines.length > 0) throw damagedStoreError(file, `quick_check: ${lines.join('; ')}`);
}

/**
 * FTS5 keeps each table's structure record cached per connection and quick_check checks
 * against that cache without first looking for newer commits: on a long-lived connection
 * (a server's) after another connection indexed, it reports "checksum mismatch" on a sound
 * file. One read of each FTS5 table reloads the structure.
 */
function refreshFullTextTables(db: Database.Database): void {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING fts5%'").pluck().all() as string[];
  for (const table of tables) db.prepare(`SELECT rowid FROM "${table.replaceAll('"', '""')}" LIMIT 1`).get();
}
