import type { LociConfig } from '../config/schema.js';
import { createSafeReader, type SafeReader } from '../sources/safe-read.js';
import { MEMORY_DATABASE, storeFilePaths, type StoreLocation } from '../store/location.js';

export type { SafeReader };

/** Reads files of the root by the rules indexing follows (ignores, secrets, size), never outside it. */
export function engineSourceReader(root: string, config: LociConfig, location: StoreLocation, options: { budgetBytes?: number }): SafeReader {
  return createSafeReader({
    root,
    maxFileBytes: config.sources.maxFileBytes,
    exclude: config.sources.exclude,
    respectGitignore: config.sources.respectGitignore,
    excludeAbsolutePaths: storeFilePaths(location, root, MEMORY_DATABASE),
    indexSecrets: config.sources.indexSecrets,
    ...(options.budgetBytes !== undefined ? { budgetBytes: options.budgetBytes } : {}),
  });
}
