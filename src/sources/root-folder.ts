import { statSync } from 'node:fs';
import { LociError } from '../errors/index.js';

/**
 * The folder to index must exist and be a folder (ROOT_NOT_FOUND): one check for the walker,
 * the engine and the CLI. Its own small module, so a one-shot command that only checks a root
 * does not load the walker.
 */
export function assertRootFolder(root: string): void {
  const found = statSync(root, { throwIfNoEntry: false });
  if (!found) throw new LociError('ROOT_NOT_FOUND', `Folder not found: ${root}.`, { details: { root } });
  if (!found.isDirectory()) throw new LociError('ROOT_NOT_FOUND', `Not a folder: ${root}.`, { details: { root } });
}
