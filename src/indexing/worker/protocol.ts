import type { StoreLocation } from '../../store/location.js';
import type { IndexEvent, IndexSummary } from '../events.js';
import type { IndexJobSpec } from '../index-job.js';

/**
 * What the engine asks the indexing worker to do: the same job it would run in-process,
 * plus what the worker needs to open its own store and model. Structured-cloneable.
 */
export interface WorkerJob extends IndexJobSpec {
  /** The worker opens its own connection here and resolves `embedderSpec` itself. */
  location: StoreLocation;
  env: Record<string, string | undefined>;
  /** OS niceness for the worker thread (0 = normal, 19 = lowest). */
  niceness: number;
}

export type WorkerReply =
  | { type: 'started'; niceness: number | null; threadId: number }
  | { type: 'event'; event: IndexEvent }
  | { type: 'done'; summary: IndexSummary }
  | { type: 'failed'; error: { code?: string; message: string; hint?: string; details?: Record<string, unknown>; stack?: string } };

export type WorkerCommand = { type: 'abort' };
