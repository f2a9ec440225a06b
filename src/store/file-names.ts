/** The memory's own SQLite database, beside the index's `index.db` in the store folder. */
export const MEMORY_DATABASE = 'memory.db';
