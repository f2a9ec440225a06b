import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoci } from './create-loci.js';
import type { IndexEvent } from '../indexing/events.js';
import { CURRENT_SCHEMA_VERSION } from '../store/sqlite/schema.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'loci-store-upgrade-'));
  await writeFile(join(root, 'queue.ts'), 'export function flushQueue(jobs: string[]): number {\n  return jobs.length;\n}\n');
  const indexer = createLoci({ root });
  await indexer.index();
  await indexer.close();
  // What a store written by the version before schema 5 looks like: its vectors in a WITHOUT ROWID table.
  const db = new Database(join(root, '.loci', 'index.db'));
  db.exec(`CREATE TABLE old_vectors (embedder TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (embedder, content_hash)) WITHOUT ROWID;
    INSERT INTO old_vectors SELECT embedder, content_hash, vector, created_at FROM embeddings;
    DROP TABLE embeddings;
    ALTER TABLE old_vectors RENAME TO embeddings;
    UPDATE meta SET value = '4' WHERE key = 'schema_version';`);
  db.close();
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const upgradeNote = /written by an older loci: it was upgraded from loci's schema version 4 to \d+/;

/** The next search says the store was upgraded, and finds the file as before; the one after says nothing. */
async function expectWarnedOnce(loci: ReturnType<typeof createLoci>): Promise<void> {
  const first = await loci.search('flush the queue');
  expect(first.warnings.join(' ')).toMatch(upgradeNote);
  expect(first.results[0]?.path).toBe('queue.ts');
  expect((await loci.search('flush the queue')).warnings.join(' ')).not.toMatch(upgradeNote);
}

describe('a store written by an older loci', () => {
  it('is upgraded at an index run, which reports it as a progress event before any other', async () => {
    const loci = createLoci({ root });
    const events: IndexEvent[] = [];
    try {
      await loci.index({ onProgress: (event) => events.push(event) });
      expect(events[0]).toEqual({ type: 'store-upgrade', store: join(root, '.loci', 'index.db'), from: 4, to: CURRENT_SCHEMA_VERSION });
      expect(events.filter((event) => event.type === 'store-upgrade')).toHaveLength(1);
      await expectWarnedOnce(loci); // the run's next search says so once
    } finally {
      await loci.close();
    }
    // Upgraded once: a later run reports nothing.
    const later = createLoci({ root });
    const laterEvents: IndexEvent[] = [];
    try {
      await later.index({ onProgress: (event) => laterEvents.push(event) });
      expect(laterEvents.some((event) => event.type === 'store-upgrade')).toBe(false);
    } finally {
      await later.close();
    }
  });

  it("is upgraded by a search's open too, whose response says so once", async () => {
    const loci = createLoci({ root });
    try {
      await expectWarnedOnce(loci);
    } finally {
      await loci.close();
    }
  });
});
