import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChunkRecord } from '../../store/spec.js';
import { textFeatures, type FeatureContext, type TextFeatures } from './features.js';

/**
 * Rows fetched at a time (one store call). Between rows the event loop turns, so a vector
 * search that has finished is seen within one row's features (~60 µs at 100k chunks on the
 * bench machine, docs/benchmarks.md) and not kept waiting.
 */
const BATCH = 8;

/** Records and text features gathered for some rows before the fused list was known. */
export interface EarlyFeatures {
  context: FeatureContext;
  records: Map<number, ChunkRecord>;
  text: Map<number, TextFeatures>;
}

/**
 * Uses the time a hybrid search waits for its vector side (the graph walks on another thread):
 * while `pending()` holds, fetches the records of `rowIds` (the lexical head, best first, which
 * is most of the ranker's window) and computes their text features, a few rows a step. Stops
 * when the vector search has finished or the rows run out; whatever it did not reach is done
 * after fusion as before, so the ranking is the same either way.
 *
 * `takeReplies` (the warm index's graph thread) handles the vector side's reply as soon as it
 * was sent, between rows, instead of an event loop turn after each row: the rest of that
 * search then runs as microtasks between rows. At 100k chunks a ranked search took 4-7 % less
 * (alternating rounds, docs/benchmarks.md). Without it, each row ends with a turn.
 */
export async function featuresWhile(
  pending: () => boolean,
  rowIds: readonly number[],
  context: FeatureContext,
  getChunks: (rowIds: number[]) => Promise<ChunkRecord[]>,
  takeReplies?: () => void,
): Promise<EarlyFeatures> {
  const out: EarlyFeatures = { context, records: new Map(), text: new Map() };
  const step = async (): Promise<void> => {
    if (!takeReplies) return nextTurn();
    takeReplies();
    await undefined; // what the reply settled runs before the next row
  };
  // A result that came in while the caller worked is taken before any row.
  await step();
  for (let start = 0; start < rowIds.length && pending(); start += BATCH) {
    for (const record of await getChunks(rowIds.slice(start, start + BATCH))) {
      out.records.set(record.rowId, record); // fetched and not measured, a record still saves a fetch
      if (!pending()) continue;
      out.text.set(record.rowId, textFeatures(context, record));
      await step();
    }
  }
  return out;
}
