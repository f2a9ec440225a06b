import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import { storeStillHere } from './still-here.js';

describe('storeStillHere (whether caches may be saved beside a store)', () => {
  it('is true for the store at its path, false once its file was deleted or replaced, true for other errors', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loci-still-here-'));
    const file = join(folder, 'index.db');
    const store = await openSqliteStore({ file, create: true });
    const again = await openSqliteStore({ file, create: true });
    try {
      expect(await storeStillHere(store)).toBe(true);
      await rm(file);
      expect(await storeStillHere(store)).toBe(false);
      const replacement = await openSqliteStore({ file, create: true }); // another store at the same path
      await replacement.close();
      expect(await storeStillHere(store)).toBe(false);
      await again.close();
      expect(await storeStillHere(again)).toBe(true); // closed (ENGINE_CLOSED): not this check's to refuse
    } finally {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
