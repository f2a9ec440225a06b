/** The store state key holding the last run's summary (read by `status`). */
export const LAST_RUN_STATE = 'last-run';

/** Where the index keeps the spec of the embedder that built it. */
export const EMBEDDER_SPEC_STATE = 'embedder-spec';
