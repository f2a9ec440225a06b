import type { LociConfig } from '../../config/schema.js';
import type { StoreLocation } from '../../store/location.js';
import type { IndexEvent, IndexSummary } from '../events.js';

/** What the engine asks the indexing worker to do; everything in it is structured-cloneable. */
export interface WorkerJob {
  root: string;
  location: StoreLocation;
  /** Embedder spec the worker resolves itself (`static`, `openai:…`, `none`). */
  embedder: string;
  config: LociConfig;
  env: Record<string, string | undefined>;
  excludeAbsolutePaths: string[];
  /** A whole-folder run, or just these paths (the watcher's big batches). */
  paths?: string[];
  progressive: boolean;
  /** OS niceness for the worker thread (0 = normal, 19 = lowest). */
  niceness: number;
  /** Build and save the vector graph after the run, so the searching thread loads it. */
  graphFile?: string;
}

export type WorkerReply =
  | { type: 'started'; niceness: number | null; threadId: number }
  | { type: 'event'; event: IndexEvent }
  | { type: 'done'; summary: IndexSummary }
  | { type: 'failed'; error: { code?: string; message: string; hint?: string; details?: Record<string, unknown>; stack?: string } };

export type WorkerCommand = { type: 'abort' };
