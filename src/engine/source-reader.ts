import type { LociConfig } from '../config/schema.js';
import { LociError } from '../errors/index.js';
import { createSafeReader, type SafeReader } from '../sources/safe-read.js';
import { MEMORY_DATABASE, storeFilePaths, type StoreLocation } from '../store/location.js';
import type { CreateLociOptions } from './engine-types.js';

/** createLoci's one required option, checked for JavaScript callers (`createLoci()` was a TypeError on `root`). */
export function checkCreateOptions(options: CreateLociOptions): void {
  if (typeof options !== 'object' || options === null || typeof options.root !== 'string' || options.root === '') {
    throw new LociError('INVALID_ARGUMENT', 'createLoci needs the folder to work on: createLoci({ root: "./my-project" }).');
  }
}

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
