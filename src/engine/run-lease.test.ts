import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../store/spec.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { acquireRunLease, currentRun, interruptedRun, RUN_LEASE_STATE, type RunLeaseHolder } from './run-lease.js';

let folder: string;
let store: Store;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'loci-lease-'));
  store = openSqliteStore({ file: join(folder, 'index.db'), create: true });
});

afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

const fast = { pollMs: 10, renewMs: 20 };

describe('the indexing lease', () => {
  it('makes a second run wait for the first, then lets it in', async () => {
    const first = await acquireRunLease(store, fast);
    const waits: RunLeaseHolder[] = [];
    let second: Awaited<ReturnType<typeof acquireRunLease>> | undefined;
    const pending = acquireRunLease(store, { ...fast, onWait: (holder) => waits.push(holder) }).then((lease) => {
      second = lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(second).toBeUndefined();
    expect(waits).toEqual([expect.objectContaining({ pid: process.pid, host: hostname() })]);
    expect(await currentRun(store)).toEqual({ pid: process.pid, host: hostname(), since: expect.any(Number) });
    await first.release();
    await pending;
    expect(second).toBeDefined();
    await second?.release();
    expect(await store.readState(RUN_LEASE_STATE)).toBe('null');
    expect(await currentRun(store)).toBeUndefined();
  });

  it('takes at once a lease whose holder died on this machine (kill -9 leaves it behind)', async () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    await store.writeState(RUN_LEASE_STATE, JSON.stringify({ token: 'x', pid: dead, host: hostname(), since: Date.now(), renewed: Date.now() }));
    // Until then, status can tell that run was interrupted (not running, not failed with an error).
    const since = JSON.parse((await store.readState(RUN_LEASE_STATE)) as string).since as number;
    expect(await currentRun(store)).toBeUndefined();
    expect(await interruptedRun(store)).toEqual({ pid: dead, host: hostname(), since });
    const waits: RunLeaseHolder[] = [];
    const lease = await acquireRunLease(store, { ...fast, onWait: (holder) => waits.push(holder) });
    expect(waits).toEqual([]);
    expect(await interruptedRun(store)).toBeUndefined(); // held by this run now
    await lease.release();
    expect(await interruptedRun(store)).toBeUndefined(); // a finished run leaves none
  });

  it("takes at once a lease left in this process's name by a release that failed (the store was closed first)", async () => {
    await store.writeState(RUN_LEASE_STATE, JSON.stringify({ token: 'left-behind', pid: process.pid, host: hostname(), since: Date.now(), renewed: Date.now() }));
    const waits: RunLeaseHolder[] = [];
    const lease = await acquireRunLease(store, { ...fast, onWait: (holder) => waits.push(holder) });
    expect(waits).toEqual([]);
    await lease.release();
  });

  it('waits for a live holder on another machine while it renews, and takes the lease once it stops renewing', async () => {
    const other = (renewed: number) => JSON.stringify({ token: 'remote', pid: 1, host: 'another-host', since: 0, renewed });
    await store.writeState(RUN_LEASE_STATE, other(Date.now()));
    const renewing = setInterval(() => void store.writeState(RUN_LEASE_STATE, other(Date.now())), 20);
    let taken = false;
    const pending = acquireRunLease(store, { ...fast, staleMs: 300 }).then((lease) => {
      taken = true;
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(taken).toBe(false);
    clearInterval(renewing);
    const lease = await pending;
    expect(JSON.parse((await store.readState(RUN_LEASE_STATE)) as string)).toMatchObject({ pid: process.pid });
    await lease.release();
  });

  it('renews the lease while held, and a waiting run can give up (Ctrl-C)', async () => {
    const held = await acquireRunLease(store, fast);
    const before = JSON.parse((await store.readState(RUN_LEASE_STATE)) as string) as { renewed: number };
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = JSON.parse((await store.readState(RUN_LEASE_STATE)) as string) as { renewed: number };
    expect(after.renewed).toBeGreaterThan(before.renewed);
    const controller = new AbortController();
    const waiting = acquireRunLease(store, { ...fast, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('interrupted')), 50);
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    await held.release();
  });
});
