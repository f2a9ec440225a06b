import type { HistoryTurn } from './templates.js';

/** Share of a prompt's token limit given to conversation history (what `loci ask` has always used). */
export const HISTORY_SHARE = 0.25;

/**
 * What history needs from a memory (an engine's `Memory` is one): a conversation's turns chosen
 * within a token budget, the latest first and then older ones relevant to the query.
 */
export interface ConversationMemory {
  history(options: { conversationId: string; query?: string; tokenBudget: number; namespace?: string; tokenizer?: string; signal?: AbortSignal }): Promise<{
    turns: ReadonlyArray<{ fields?: unknown }>;
    tokens: number;
    omitted: number;
  }>;
}

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
  /** Their size in the prompt's tokenizer, and how many turns of the conversation were left out. */
  tokens: number;
  omitted: number;
}

/**
 * The budgeted history of a conversation for a prompt (`buildContext`'s `conversationId`, and
 * through it `ask`, `context`, `/v1/context`, the MCP context tool): the latest turns, then older
 * ones relevant to the question. A conversation with no turns yet gives an empty history, not an error.
 */
export async function promptHistory(memory: ConversationMemory, options: PromptHistoryOptions): Promise<PromptHistory> {
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
    const fields = (turn.fields ?? {}) as { userQuery?: unknown; assistantResponse?: unknown };
    return { userQuery: String(fields.userQuery ?? ''), assistantResponse: String(fields.assistantResponse ?? '') };
  });
  return { turns, tokens: result.tokens, omitted: result.omitted };
}
