import { processAlive } from '../store/process-alive.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { throwIfAborted } from '../errors/index.js';
import type { Store } from '../store/spec.js';

/**
 * One indexing run at a time per store, across processes (`loci serve --index` and a
 * `loci index` in a terminal, two terminals, a library and its CLI). Without it two runs on
 * one folder both planned before either wrote, and each re-indexed everything. The lease is
 * a named value in the store taken by compare-and-set; its holder renews it while it runs.
 * A holder that died (kill -9) frees it at once on the same machine (its pid is gone), and
 * after LEASE_STALE_MS without renewal from another machine (a shared PostgreSQL store).
 */
export const RUN_LEASE_STATE = 'index-run';
export const LEASE_RENEW_MS = 5_000;
export const LEASE_STALE_MS = 60_000;
const POLL_MS = 250;
/** Tokens of the leases this process holds: a lease in its own pid's name but not among them was left behind (a release that failed). */
const heldHere = new Set<string>();

export interface RunLeaseHolder {
  pid: number;
  host: string;
  /** When the holder took the lease (epoch ms). */
  since: number;
}

interface LeaseValue extends RunLeaseHolder {
  token: string;
  /** Last renewal (epoch ms). */
  renewed: number;
}

export interface RunLease {
  release(): Promise<void>;
}

export interface LeaseOptions {
  signal?: AbortSignal;
  /** Called once when the run has to wait, with the run that holds the lease. */
  onWait?: (holder: RunLeaseHolder) => void;
  /** Tests shorten these. */
  renewMs?: number;
  staleMs?: number;
  pollMs?: number;
}

/** Waits until this process holds the store's indexing lease (abortable), then renews it until released. */
export async function acquireRunLease(store: Store, options: LeaseOptions = {}): Promise<RunLease> {
  const staleMs = options.staleMs ?? LEASE_STALE_MS;
  const host = hostname();
  const token = randomUUID();
  const since = Date.now();
  const mine = (): string => JSON.stringify({ token, pid: process.pid, host, since, renewed: Date.now() } satisfies LeaseValue);
  let waited = false;
  for (;;) {
    throwIfAborted(options.signal);
    let holder: LeaseValue | undefined;
    const stored = await store.updateState(RUN_LEASE_STATE, (current) => {
      holder = parseLease(current);
      return holder === undefined || isFree(holder, host, staleMs) ? mine() : undefined;
    });
    if (parseLease(stored)?.token === token) {
      heldHere.add(token);
      break;
    }
    if (!waited && holder) {
      waited = true;
      options.onWait?.({ pid: holder.pid, host: holder.host, since: holder.since });
    }
    await sleep(options.pollMs ?? POLL_MS, undefined, options.signal ? { signal: options.signal } : {}).catch(() => undefined);
  }
  let renewing: Promise<unknown> = Promise.resolve();
  const renew = setInterval(() => {
    renewing = store.updateState(RUN_LEASE_STATE, (current) => (parseLease(current)?.token === token ? mine() : undefined)).catch(() => undefined);
  }, options.renewMs ?? LEASE_RENEW_MS);
  renew.unref();
  return {
    async release() {
      clearInterval(renew);
      heldHere.delete(token);
      await renewing;
      await store.updateState(RUN_LEASE_STATE, (current) => (parseLease(current)?.token === token ? 'null' : undefined));
    },
  };
}

/** The run indexing the store now, if one holds the lease (for status). */
export async function currentRun(store: Store): Promise<RunLeaseHolder | undefined> {
  const lease = parseLease(await store.readState(RUN_LEASE_STATE));
  return lease && !isFree(lease, hostname(), LEASE_STALE_MS) ? { pid: lease.pid, host: lease.host, since: lease.since } : undefined;
}

/**
 * The run whose lease is still in the store although its process is gone (killed, crashed, the
 * machine restarted): what it committed is kept and the next run does the rest.
 */
export async function interruptedRun(store: Store): Promise<RunLeaseHolder | undefined> {
  const lease = parseLease(await store.readState(RUN_LEASE_STATE));
  return lease && lease.pid !== process.pid && isFree(lease, hostname(), LEASE_STALE_MS) ? { pid: lease.pid, host: lease.host, since: lease.since } : undefined;
}

function isFree(lease: LeaseValue, host: string, staleMs: number): boolean {
  if (Date.now() - lease.renewed > staleMs) return true;
  if (lease.host !== host) return false;
  return lease.pid === process.pid ? !heldHere.has(lease.token) : !processAlive(lease.pid);
}

function parseLease(raw: string | undefined): LeaseValue | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<LeaseValue> | null;
    if (!value || typeof value.token !== 'string' || typeof value.pid !== 'number' || typeof value.renewed !== 'number') return undefined;
    return { token: value.token, pid: value.pid, host: String(value.host ?? ''), since: Number(value.since ?? value.renewed), renewed: value.renewed };
  } catch {
    return undefined; // unreadable: treated as free
  }
}
