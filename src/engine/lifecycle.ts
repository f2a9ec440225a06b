import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { abortSignal, callback, checkKeys, checkTypes, plainObject } from '../errors/check-types.js';
import { LociError } from '../errors/index.js';
import { assertRootFolder } from '../sources/root-folder.js';
import type { CreateLociOptions, RunOptions } from './engine-types.js';

/** createLoci's one required option, checked for JavaScript callers (`createLoci()` was a TypeError on `root`). */
export function checkCreateOptions(options: CreateLociOptions): void {
  if (typeof options !== 'object' || options === null || typeof options.root !== 'string' || options.root === '') {
    throw new LociError('INVALID_ARGUMENT', 'createLoci needs the folder to work on: createLoci({ root: "./my-project" }).', {
      hint: 'root is the folder index() reads and results are relative to. For documents only (indexDocuments), any existing folder will do, with store where the index goes: createLoci({ root: ".", store: "./docs-index" }).',
    });
  }
  // Nobody shares these: a misspelled `store` or `inMemory` would put the index somewhere else.
  checkKeys(options, CREATE_KEYS, 'createLoci options', { strict: true });
  checkTypes(createTypes, options, 'createLoci options', "{ root: './my-project', store: './my-project/.loci', embedder: 'static' }");
}

const createTypes = z.looseObject({
  root: z.string(),
  store: z.union([z.string(), plainObject]).optional(),
  config: plainObject.optional(),
  embedder: z.union([z.string(), plainObject]).optional(),
  // process.env is no plain object (zod's record refuses it): each value is checked instead.
  env: z
    .custom<object>(
      (value) => typeof value === 'object' && value !== null && Object.values(value).every((entry) => entry === undefined || typeof entry === 'string'),
      'expected an object of strings, e.g. process.env',
    )
    .optional(),
  inMemory: z.boolean().optional(),
});

const statusTypes = z.looseObject({ checkChanges: z.boolean().optional(), signal: abortSignal.optional() });
const gcTypes = z.looseObject({ compact: z.boolean().optional() });

/** status()'s options, checked (keys and types) and handed back. */
export function checkedStatusOptions<T extends object>(options: T): T {
  checkTypes(statusTypes, options, 'status options', '{ checkChanges: true }');
  return options;
}

/** gc()'s options, checked (keys and types) and handed back. */
export function checkedGcOptions<T extends object>(options: T): T {
  checkTypes(gcTypes, options, 'gc options', '{ compact: true }');
  return options;
}

export const CREATE_KEYS = ['root', 'store', 'config', 'embedder', 'env', 'inMemory'] satisfies Array<keyof CreateLociOptions>;

export const runOptions = z.looseObject({
  signal: abortSignal.optional(),
  onProgress: callback.optional(),
  progressive: z.enum(['auto', 'always', 'never']).optional(),
  prune: z.boolean().optional(),
});

/** The types of an index run's options (errors/check-types.ts), then `check`: what the run needs. */
export function checkRun(options: RunOptions & { prune?: boolean }, check: (() => void) | undefined): void {
  checkTypes(runOptions, options, 'index options', "{ progressive: 'never', onProgress: (event) => console.log(event.type) }");
  check?.();
}

/** indexPaths takes paths inside the root (relative to it, or absolute under it): `../../etc/passwd` indexed nothing and said nothing. */
export function checkPathsInside(root: string, paths: readonly string[]): void {
  assertRootFolder(root);
  if (!Array.isArray(paths)) throw new LociError('INVALID_ARGUMENT', 'indexPaths takes a list of paths, e.g. ["src/app.ts"].');
  for (const path of paths) {
    if (typeof path !== 'string' || path === '') throw new LociError('INVALID_ARGUMENT', `indexPaths takes paths as non-empty strings; got ${JSON.stringify(path) ?? typeof path}.`);
    const inside = relative(root, resolve(root, path));
    if (inside.startsWith('..') || isAbsolute(inside)) {
      throw new LociError('PATH_OUTSIDE_ROOT', `Path ${path} is not inside the indexed folder ${root}: paths are relative to it.`);
    }
  }
}

/** The error every call to a closed engine (or a store it closed) gets. */
export function engineClosed(): LociError {
  return new LociError('ENGINE_CLOSED', 'This loci engine was closed; a closed engine answers nothing.');
}

/**
 * What close() waits for and refuses after. Calls under way when it is called finish (an
 * index run is asked to stop after the file in flight and rejects with ABORTED); calls made
 * after it throw ENGINE_CLOSED instead of quietly opening the stores again.
 */
export class EngineLifecycle {
  private closed = false;
  private readonly closing = new AbortController();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly closers = new Set<{ close(): Promise<void> }>();

  get isClosed(): boolean {
    return this.closed;
  }

  assertOpen(): void {
    if (this.closed) throw engineClosed();
  }

  /** Runs a call that close() waits for. */
  track<T>(call: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(engineClosed());
    const pending = call();
    this.inflight.add(pending);
    const settled = () => this.inflight.delete(pending);
    pending.then(settled, settled);
    return pending;
  }

  /** The caller's signal, also aborted when the engine closes. */
  signal(user: AbortSignal | undefined): AbortSignal {
    return user ? anySignal([user, this.closing.signal]) : this.closing.signal;
  }

  /** Something the engine started that close() stops (a watcher). */
  own<T extends { close(): Promise<void> }>(closer: T): T {
    this.closers.add(closer);
    const close = closer.close.bind(closer);
    closer.close = async () => {
      this.closers.delete(closer);
      await close();
    };
    return closer;
  }

  /** Marks the engine closed, stops runs and watchers, and waits for calls under way; false when already closed. */
  async close(): Promise<boolean> {
    if (this.closed) return false;
    this.closed = true;
    this.closing.abort(engineClosed());
    await Promise.allSettled([...this.closers].map((closer) => closer.close()));
    await Promise.allSettled([...this.inflight]);
    return true;
  }
}

/** AbortSignal.any (Node 20.3+), with a fallback for older Node 20 releases. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const native = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any;
  if (native) return native(signals);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
