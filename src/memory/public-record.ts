import type { HistoryResult, MemoryHit, MemoryRecord, TurnFields } from './spec.js';

/**
 * A record as every door returns it (HTTP, MCP, CLI --json): all its fields but `context`,
 * the neighbouring text it is indexed with, which is internal to search.
 */
export function publicRecord(record: MemoryRecord): Omit<MemoryRecord, 'context'> {
  const { context: _context, ...rest } = record;
  return rest;
}

/** A recall hit as every door returns it: the public record, its score (4 decimals) and signals. */
export function publicHit(hit: MemoryHit) {
  return { ...publicRecord(hit.record), score: Math.round(hit.score * 1e4) / 1e4, signals: hit.signals, ...(hit.explanation ? { explanation: hit.explanation } : {}) };
}

/** A conversation's history as every door returns it: its turns, the same as chat messages, and what was left out. */
export function publicHistory(history: HistoryResult) {
  return {
    turns: history.turns.map(publicRecord),
    messages: history.turns.flatMap((turn) => {
      const fields = turn.fields as TurnFields;
      return [
        { role: 'user' as const, content: fields.userQuery },
        { role: 'assistant' as const, content: fields.assistantResponse },
      ];
    }),
    tokens: history.tokens,
    recentIds: history.recentIds,
    relevantIds: history.relevantIds,
    omitted: history.omitted,
  };
}
