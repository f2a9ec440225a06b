import type { Store } from '../store/spec.js';
import { namespacePrefix } from './namespace.js';
import type { RecordStore } from './record-store.js';
import type { MemoryRecord } from './spec.js';

/**
 * Gives each new turn, note or interaction the text of the records just before it in its
 * namespace as context (config memory.contextWindow): a reply is then found by the words
 * of the message it answers. Measured on LoCoMo: Recall@10 0.66 → 0.79 with two. The latest
 * texts of a namespace are loaded once per process and then kept up to date.
 */
export class ContextWindow {
  private readonly tails = new Map<string, string[]>();

  constructor(
    private readonly size: number,
    private readonly store: Store,
    private readonly records: RecordStore,
  ) {}

  async attach(records: MemoryRecord[]): Promise<void> {
    if (this.size === 0) return;
    // Records of one batch see those before them, but the kept tails change only once they are
    // written (remember): a write that fails must not lend its text to the next record.
    const pending = new Map<string, string[]>();
    for (const record of records) {
      if (record.kind === 'knowledge' || record.context !== undefined || record.mergedCount > 0) continue;
      let tail = pending.get(record.namespace);
      if (!tail) {
        tail = [...(await this.tailOf(record.namespace))];
        pending.set(record.namespace, tail);
      }
      if (tail.length > 0) record.context = tail.join('\n').slice(-4000);
      if (tail.at(-1) !== record.text) tail.push(record.text);
      if (tail.length > this.size) tail.shift();
    }
  }

  /** Keeps a written record's text as context for the next one in its namespace. */
  remember(record: MemoryRecord): void {
    const tail = this.tails.get(record.namespace);
    if (!tail || record.kind === 'knowledge' || tail.at(-1) === record.text) return;
    tail.push(record.text);
    if (tail.length > this.size) tail.shift();
  }

  private async tailOf(namespace: string): Promise<string[]> {
    let tail = this.tails.get(namespace);
    if (!tail) {
      tail = [];
      if ((await this.store.countCatalog(namespacePrefix(namespace))) > 0) {
        const latest = (await this.records.list({ namespaces: [namespace] })).filter((record) => record.kind !== 'knowledge');
        tail = latest.slice(-this.size).map((record) => record.text);
      }
      this.tails.set(namespace, tail);
    }
    return tail;
  }
}
