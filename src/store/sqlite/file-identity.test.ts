import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileIdentity } from './file-identity.js';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'loci-identity-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('the file a store opened', () => {
  it('is checked before every write; a read shares a check that passed moments before, and none after one failed', () => {
    const file = join(folder, 'index.db');
    writeFileSync(file, 'x');
    let now = 1_000;
    const identity = new FileIdentity(file, () => now);
    identity.check('index.db', true);
    rmSync(file);
    now += 50;
    expect(() => identity.check('index.db', true)).not.toThrow(); // the open file, as it was 50 ms ago
    expect(() => identity.check('index.db')).toThrow(expect.objectContaining({ code: 'STORE_GONE' }));
    expect(() => identity.check('index.db', true)).toThrow(expect.objectContaining({ code: 'STORE_GONE' }));
  });

  it('makes a read check again once the last check is old', () => {
    const file = join(folder, 'index.db');
    writeFileSync(file, 'x');
    let now = 1_000;
    const identity = new FileIdentity(file, () => now);
    identity.check('index.db');
    renameSync(file, join(folder, 'old.db')); // kept, so the new file cannot reuse its inode
    writeFileSync(file, 'replaced');
    now += 150;
    expect(() => identity.check('index.db', true)).toThrow(expect.objectContaining({ code: 'STORE_GONE', message: expect.stringContaining('replaced') }));
  });
});
