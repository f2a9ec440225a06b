/** The memory's own SQLite database, beside the index's `index.db` in the store folder. */
export const MEMORY_DATABASE = 'memory.db';

/** The named store state holding the store's random instance id: segment and graph files carry it, so another store's are never read. */
export const STORE_INSTANCE_STATE = 'store-instance';
