import { randomUUID } from 'node:crypto';
import { sortTerms } from '../../store/segment-file.js';
import type { SegmentContents } from '../../store/segment-format.js';
import type { Store } from '../../store/spec.js';
import type { ExactOrGraphVectorIndex } from './exact-or-graph-vector-index.js';
import type { LexicalIndex } from './lexical-index.js';
import type { Lexicon } from './lexicon.js';

/** Named store state holding a random id of the store, so a segment file is never read against another store. */
export const STORE_INSTANCE_STATE = 'store-instance';

/** Gives the store an instance id if it has none (indexing calls this; readers never write). */
export async function ensureStoreInstance(store: Store): Promise<void> {
  if (!(await store.readState(STORE_INSTANCE_STATE))) await store.writeState(STORE_INSTANCE_STATE, randomUUID());
}

/** A warm index's parts, as its segment file holds them. */
export interface WarmParts {
  header: SegmentContents['header'];
  lexical: LexicalIndex;
  vectors: ExactOrGraphVectorIndex | undefined;
  termIds: Lexicon;
  /** Rows held without a vector yet, with the content hash their vector will come by. */
  withoutVector: ReadonlyMap<number, { path: string; language: string; contentHash: string }>;
}

/**
 * What a warm index saves: snapshots of its lexical and vector sides sharing one row-metadata
 * table (a vector row whose file the lexical side lacks gets an entry appended), its lexicon
 * sorted, and the rows still waiting for a vector.
 */
export function segmentContents(parts: WarmParts): SegmentContents {
  const lexical = parts.lexical.snapshot();
  const metaIds = new Map<string, number>(lexical.metas.map((meta, index) => [`${meta.language}\u0000${meta.path}`, index]));
  const metaId = (meta: { path: string; language: string }): number => {
    const key = `${meta.language}\u0000${meta.path}`;
    let id = metaIds.get(key);
    if (id === undefined) {
      id = lexical.metas.length;
      lexical.metas.push({ path: meta.path, language: meta.language });
      metaIds.set(key, id);
    }
    return id;
  };
  const vectors = parts.vectors ? { ...parts.vectors.snapshot(metaId), metas: lexical.metas } : undefined;
  return {
    header: parts.header,
    lexical,
    vectors,
    lexicon: sortTerms(parts.termIds.entries()),
    pending: [...parts.withoutVector].map(([rowId, { contentHash, ...meta }]) => ({ rowId, meta, contentHash })),
  };
}
