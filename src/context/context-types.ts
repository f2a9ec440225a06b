import type { ChatMessage, ChatModel } from '../llm/spec.js';
import type { SearchOptions, SearchResponse } from '../retrieve/search-types.js';
import type { SafeReader } from '../sources/safe-read.js';
import type { ConversationMemory } from './conversation-history.js';
import type { ContextItem, DroppedItem } from './pack.js';
import type { Reranker } from './rerank/spec.js';
import type { HistoryTurn, PromptTemplate } from './templates.js';

/** What building a context needs from an index (an engine's `Loci` is one). */
export interface ContextSource {
  readonly root: string;
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  files(): Promise<Array<{ path: string; size: number; language: string }>>;
  outline(): Promise<Array<{ path: string; symbols: Array<{ name: string; line: number }> }>>;
  sourceReader(options?: { budgetBytes?: number }): SafeReader;
  /** Its agent memory, where `conversationId` finds a conversation's turns (an engine has one). */
  memory?(): Promise<ConversationMemory>;
}

export interface ContextOptions {
  /** Hard limit for the whole prompt, in the counter's unit (tokens by default). */
  maxTokens?: number;
  /** Stop adding context once the prompt reaches this (default 85 % of maxTokens). */
  softTokens?: number;
  /** `o200k` (default), `cl100k`, `bytes`, or a model name. */
  tokenizer?: string;
  /** Candidates retrieved before reranking (default 50), and kept after it (default 20). */
  topN?: number;
  topK?: number;
  /** Results scoring below this are not sent (Go agent's similarity limit); default 0. */
  threshold?: number;
  /** Retrieved chunks less similar than this to the question (cosine, −1 to 1) are not sent. */
  minSimilarity?: number;
  paths?: string[];
  /** Files always sent whole, before anything retrieved (`@path` in a question works too). */
  include?: string[];
  /** Aye Chat's /all: send every indexed file matching this glob mask, or fail with the size. */
  all?: string;
  /** Send everything when the project is small (default true: < 200 files and < 170 KB). */
  smallProject?: boolean;
  reranker?: Reranker;
  /** Ask this model to pick files from a repo map; picked files get a boost in the ranking. */
  pickFilesWith?: ChatModel;
  /** Prepend a repo map of this many tokens to the context (0: none). */
  repoMapTokens?: number;
  system?: string;
  /** Conversation turns to put in the prompt as they are (or name a stored conversation with `conversationId`). */
  history?: readonly HistoryTurn[];
  /**
   * Put this stored conversation's budgeted history into the prompt: its latest turns, then
   * older ones relevant to the question, within `historyTokens` (default a quarter of
   * maxTokens), as `loci ask` does. A conversation with no turns adds none.
   */
  conversationId?: string;
  historyTokens?: number;
  /** Where the conversation's turns are stored (default `conversations/<conversationId>`, where `addTurn` puts them). */
  conversationNamespace?: string;
  template?: PromptTemplate;
  /** Bytes of whole files (includes, /all, small project) one call may read; default 8 MB. */
  readBudgetBytes?: number;
  signal?: AbortSignal;
}

export interface BuiltContext {
  /** Size of `prompt` in the counter's unit; never above maxTokens. */
  tokens: number;
  unit: 'tokens' | 'bytes';
  tokenizer: string;
  prompt: string;
  messages: ChatMessage[];
  sources: Array<{ path: string; startLine: number; endLine: number }>;
  items: ContextItem[];
  mode: 'retrieved' | 'all' | 'small-project';
  /** Items retrieved but left out for lack of room. */
  skipped: number;
  /** How the budget was spent: each sent item's size, and each left-out item with the reason. */
  packing: ContextPacking;
  repoMap?: { files: number; truncated: boolean };
  pickedFiles?: string[];
  /** With `conversationId`: the turns of that conversation put in the prompt, their size, and how many were left out. */
  conversation?: { id: string; turns: number; tokens: number; omitted: number };
  /** What the caller should know: a provider that failed and was left out, a query with no searchable words. */
  warnings: string[];
  /**
   * Parts that were asked for but failed and were skipped (no hidden switches): `vector` (the
   * embedder: retrieval was lexical), `reranker` (the retrieval order was kept), `file-pick`.
   */
  degraded: boolean;
  degradedParts: Array<'vector' | 'reranker' | 'file-pick'>;
}

export interface PackedItemInfo {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  origin: NonNullable<ContextItem['origin']> | 'repo-map';
  /** Size of the item as rendered in the prompt, in the counter's unit. */
  tokens: number;
}

export interface ContextPacking {
  /** The hard limit (maxTokens) and the soft one where packing stops. */
  hardTokens: number;
  softTokens: number;
  /** System prompt, question, history and headings: what the prompt takes before any item. */
  overheadTokens: number;
  items: PackedItemInfo[];
  dropped: Array<Omit<PackedItemInfo, 'tokens'> & { tokens?: number; reason: DroppedItem['reason'] }>;
}
