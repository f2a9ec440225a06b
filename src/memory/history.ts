import { loadTokenCounter } from '../context/tokenizer.js';
import { checkKeys, checkObject } from '../errors/check-types.js';
import { LociError, throwIfAborted } from '../errors/index.js';
import { conversationNamespace, requireText } from './inputs.js';
import type { MemoryCore } from './memory-core.js';
import { normalizeNamespace } from './namespace.js';
import { DEFAULT_HISTORY_TOKENS, type HistoryOptions, type HistoryResult, type MemoryRecord, type TurnFields } from './spec.js';

/**
 * The turns of a conversation that fit a token budget: the latest ones first (up to
 * `recentShare` of the budget; the newest one whenever it fits the whole budget), then older
 * turns relevant to the query, then more recent ones while room is left. Returned in
 * conversation order. Sizes are counted with the prompt's tokenizer (an estimate was 2.5×
 * short on Chinese text).
 */
const HISTORY_KEYS = ['conversationId', 'namespace', 'query', 'tokenBudget', 'tokenizer', 'recentShare', 'now', 'signal'] satisfies Array<keyof HistoryOptions>;

export async function conversationHistory(memory: MemoryCore, options: HistoryOptions): Promise<HistoryResult> {
  checkObject(options, 'history options', "{ conversationId: 'chat-1', tokenBudget: 2000 }");
  checkKeys(options, HISTORY_KEYS, 'history options');
  requireText(options.conversationId, 'conversationId');
  const tokenBudget = options.tokenBudget ?? DEFAULT_HISTORY_TOKENS;
  if (typeof tokenBudget !== 'number' || !Number.isFinite(tokenBudget) || tokenBudget < 1)
    throw new LociError('INVALID_ARGUMENT', `tokenBudget must be a positive number; got ${JSON.stringify(tokenBudget)}.`);
  const namespace = normalizeNamespace(options.namespace ?? conversationNamespace(options.conversationId));
  const turns = (await memory.records.list({ namespaces: [namespace], kinds: ['turn'] }, options.now)).filter(
    (record) => (record.fields as TurnFields | undefined)?.conversationId === options.conversationId,
  );
  throwIfAborted(options.signal);
  const counter = await loadTokenCounter(options.tokenizer ?? 'o200k');
  const cost = new Map(turns.map((turn) => [turn.id, counter.count(turn.text) + 4]));
  const chosen = new Set<string>();
  let tokens = 0;
  const take = (record: MemoryRecord, limit: number): boolean => {
    const size = cost.get(record.id) as number;
    if (chosen.has(record.id) || tokens + size > limit) return false;
    chosen.add(record.id);
    tokens += size;
    return true;
  };
  const recentLimit = options.query ? tokenBudget * (options.recentShare ?? 0.5) : tokenBudget;
  const recentIds: string[] = [];
  for (let index = turns.length - 1; index >= 0; index--) {
    // The turn just said is what a reply most needs: it may take more than the recent share.
    if (!take(turns[index] as MemoryRecord, index === turns.length - 1 ? tokenBudget : recentLimit)) break;
    recentIds.push((turns[index] as MemoryRecord).id);
  }
  const relevantIds: string[] = [];
  if (options.query && options.query.trim() !== '' && chosen.size < turns.length) {
    throwIfAborted(options.signal);
    const hits = await memory.recall(options.query, { namespaces: [namespace], kinds: ['turn'], topK: 20, ...(options.now !== undefined ? { now: options.now } : {}) });
    for (const hit of hits) {
      if ((hit.record.fields as TurnFields | undefined)?.conversationId !== options.conversationId) continue;
      if (take(hit.record, tokenBudget)) relevantIds.push(hit.record.id);
    }
    for (let index = turns.length - 1; index >= 0; index--) {
      const turn = turns[index] as MemoryRecord;
      if (chosen.has(turn.id)) continue;
      if (!take(turn, tokenBudget)) break;
      recentIds.push(turn.id);
    }
  }
  return { turns: turns.filter((turn) => chosen.has(turn.id)), tokens, recentIds, relevantIds, omitted: turns.length - chosen.size };
}
