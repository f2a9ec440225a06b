import { LociError } from '../errors/index.js';
import type { Store } from '../store/spec.js';

/** What a store indexes: a folder's files (index, indexPaths, watch), or documents handed over (indexDocuments). */
export type StoreContent = 'folder' | 'documents';

/** The state key that records it, set by the first run that writes to the store. */
export const STORE_CONTENT_STATE = 'content';

/** What the store records that it indexes; undefined for a store no run has written to since this was recorded. */
export async function storeContent(store: Store): Promise<StoreContent | undefined> {
  const value = await store.readState(STORE_CONTENT_STATE);
  return value === 'folder' || value === 'documents' ? value : undefined;
}

/**
 * Records that a run of `kind` writes to the store, or refuses it when the store holds the
 * other kind: a folder run would remove every document (their ids are no files on disk), and a
 * document whose id is a file's path would replace that file's chunks.
 */
export async function claimStoreContent(store: Store, kind: StoreContent): Promise<void> {
  const recorded = await store.updateState(STORE_CONTENT_STATE, (current) => (current === 'folder' || current === 'documents' ? undefined : kind));
  if (recorded === undefined || recorded === kind) return;
  // A store whose runs all failed before writing anything may be used for the other kind.
  if ((await store.countCatalog()) === 0) {
    await store.writeState(STORE_CONTENT_STATE, kind);
    return;
  }
  if (kind === 'folder') {
    throw new LociError(
      'INVALID_ARGUMENT',
      `This store holds documents indexed with indexDocuments, not a folder's files: indexing a folder into it would remove every document. Nothing was changed.`,
      {
        hint: 'Index the folder into a store of its own (--store DIR, or createLoci({ root, store })), or add documents to this one with indexDocuments.',
        details: { store: store.location, content: recorded },
      },
    );
  }
  throw new LociError(
    'INVALID_ARGUMENT',
    `This store indexes a folder's files: documents added to it would replace files whose path is their id, and the next folder run would remove them. Nothing was changed.`,
    {
      hint: 'Index documents into a store of their own: createLoci({ root, store: <another folder> }).',
      details: { store: store.location, content: recorded },
    },
  );
}
