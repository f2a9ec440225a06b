import type { AddOptions } from './inputs.js';
import type { RecordStore } from './record-store.js';
import type { HistoryOptions, HistoryResult, MemoryHit, MemoryInput, MemoryRecord, RecallOptions } from './spec.js';

/**
 * What the parts of memory built on top of it (knowledge stores, history, transfer) need from
 * a `Memory`: its records, recall, batch adds and history. They depend on this, not on the
 * class, so nothing in memory/ imports in a circle; `Memory` implements it.
 */
export interface MemoryCore {
  readonly records: RecordStore;
  recall(query: string, options?: RecallOptions): Promise<MemoryHit[]>;
  addMany(inputs: readonly MemoryInput[], options?: AddOptions): Promise<MemoryRecord[]>;
  history(options: HistoryOptions): Promise<HistoryResult>;
}
