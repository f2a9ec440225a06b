import type { EmbeddingModel } from '../embed/spec.js';
import { EMBEDDER_SPEC_STATE } from '../indexing/run-state.js';
import type { Store } from '../store/spec.js';
import type { IndexStatus } from './status-types.js';

/** Where the index keeps its last failed run (JSON), cleared by the next run that succeeds. */
const FAILED_RUN_STATE = 'last-failed-run';

/**
 * Runs an index run; a failure is noted in the store (what was asked for and why it failed)
 * before it is thrown, so `status` after a failed first index does not read "embedder: none".
 */
export async function noteFailedRun<T>(openStore: () => Promise<Store>, requested: string | EmbeddingModel, run: () => Promise<T>): Promise<T> {
  try {
    const result = await run();
    const store = await openStore();
    if (await store.readState(FAILED_RUN_STATE)) await store.writeState(FAILED_RUN_STATE, '');
    return result;
  } catch (error) {
    // A run refused as asked (a misspelled embedder, a store of the other kind) did nothing: no failed run to show.
    if ((error as { category?: unknown }).category === 'usage') throw error;
    try {
      const store = await openStore();
      if (typeof requested === 'string' && (await store.getMeta()).embedderId === 'none') await store.writeState(EMBEDDER_SPEC_STATE, requested);
      const { code, message } = error as { code?: unknown; message?: unknown };
      await store.writeState(FAILED_RUN_STATE, JSON.stringify({ finishedAt: Date.now(), code: typeof code === 'string' ? code : 'INTERNAL', message: String(message ?? error) }));
    } catch {
      // The store itself may be what failed: the run's own error is the one to report.
    }
    throw error;
  }
}

/** The failed run and the embedder asked for, for status. */
export async function failedRunStatus(store: Store): Promise<{ lastFailure?: IndexStatus['lastFailure']; requestedEmbedder?: string }> {
  const [failure, spec] = await Promise.all([store.readState(FAILED_RUN_STATE), store.readState(EMBEDDER_SPEC_STATE)]);
  const out: { lastFailure?: IndexStatus['lastFailure']; requestedEmbedder?: string } = {};
  if (spec) out.requestedEmbedder = spec;
  if (failure) {
    try {
      out.lastFailure = JSON.parse(failure) as IndexStatus['lastFailure'];
    } catch {
      // A damaged note is not worth failing status for.
    }
  }
  return out;
}
