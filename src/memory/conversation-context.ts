import type { HistoryTurn } from '../context/templates.js';
import type { MemoryCore } from './memory-core.js';
import type { HistoryResult, TurnFields } from './spec.js';

/** Share of a prompt's token limit given to conversation history (what `loci ask` has always used). */
export const HISTORY_SHARE = 0.25;

export interface PromptHistoryOptions {
  conversationId: string;
  /** The new question: older turns relevant to it are kept after the latest ones. */
  question: string;
  /** The prompt's hard limit; history gets `share` of it. */
  maxTokens: number;
  /** Tokens for history; default `share` × maxTokens. */
  historyTokens?: number;
  share?: number;
  /** Default `conversations/<conversationId>`. */
  namespace?: string;
  /** The prompt's tokenizer (default o200k). */
  tokenizer?: string;
  signal?: AbortSignal;
}

export interface PromptHistory {
  /** The chosen turns in conversation order, as the prompt template takes them. */
  turns: HistoryTurn[];
  result: HistoryResult;
}

/**
 * The budgeted history of a conversation for a prompt (`ask`, `context`, `/v1/context`, the
 * MCP context tool): the latest turns, then older ones relevant to the question. A
 * conversation with no turns yet gives an empty history, not an error.
 */
export async function promptHistory(memory: MemoryCore, options: PromptHistoryOptions): Promise<PromptHistory> {
  const tokenBudget = Math.max(1, Math.floor(options.historyTokens ?? options.maxTokens * (options.share ?? HISTORY_SHARE)));
  const result = await memory.history({
    conversationId: options.conversationId,
    query: options.question,
    tokenBudget,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    ...(options.tokenizer !== undefined ? { tokenizer: options.tokenizer } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const turns = result.turns.map((turn) => {
    const fields = turn.fields as TurnFields;
    return { userQuery: fields.userQuery, assistantResponse: fields.assistantResponse };
  });
  return { turns, result };
}
