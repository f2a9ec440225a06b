// The public API. Adding an export here makes it public: keep the list explicit.
export { createLoci, type CreateLociOptions, type Loci, type RunOptions } from './engine/create-loci.js';
export type { IndexStatus } from './engine/status-types.js';
export type { IndexEvent, IndexProgressListener, IndexSummary } from './indexing/events.js';
export type { DocumentSource, LociDocument } from './indexing/index-documents.js';
export type { SearchOptions, SearchResponse, SearchResult, SignalScores } from './retrieve/search-types.js';
export type { FindSymbolOptions } from './retrieve/find-symbol.js';
export { classifyFileRole, fileRoles, type FileRole } from './sources/file-role.js';

export { LociError, isLociError, isProviderFailure, errorCodes, type ErrorCode, type ErrorCategory } from './errors/index.js';
export { configSchema, loadConfig, searchModes, type LociConfig, type LociConfigInput, type SearchMode } from './config/index.js';
export type { FolderConfigFile, FolderConfigTrust, LoadConfigOptions } from './config/index.js';

export { embedMany, RetryableEmbeddingError, type EmbedManyOptions, type EmbedManyResult } from './embed/embed-many.js';
export { embedderIdOf, type EmbeddingModel, type DoEmbedOptions, type DoEmbedResult, type EmbeddingPurpose } from './embed/spec.js';
export { registerEmbedder, listEmbedders, resolveEmbedder } from './embed/registry.js';

export { runEval, type EvalReport, type RunEvalOptions } from './eval/run-eval.js';
export type { SkipReason, SkipCounts } from './sources/spec.js';
export { LOCI_VERSION } from './version.js';
export { Memory, conversationNamespace, type AddOptions, type InteractionLog } from './memory/memory.js';
export { KnowledgeStore, knowledgeNamespace, type KnowledgeSearchOptions } from './memory/knowledge.js';
export type { ImportOptions, ImportSummary, MemoryExport } from './memory/transfer.js';
export type { RecallResult } from './memory/recall.js';
export type {
  HistoryOptions,
  HistoryResult,
  InteractionInput,
  InteractionOutcome,
  MemoryFilter,
  MemoryHit,
  MemoryInput,
  MemoryKind,
  MemoryRecord,
  RecallOptions,
  TurnInput,
} from './memory/spec.js';
export { buildContext, parseQuestion, type BuiltContext, type ContextOptions } from './context/build-context.js';
export { packItems, mergeOverlaps, type ContextItem, type PackOptions, type PackResult } from './context/pack.js';
export { renderPrompt, renderMessages, parseTemplate, loadTemplate, DEFAULT_SYSTEM_PROMPT, type PromptTemplate, type HistoryTurn } from './context/templates.js';
export { loadTokenCounter, type TokenCounter } from './context/tokenizer.js';
export { buildRepoMap, pickFilesWithModel, type RepoMap } from './context/repo-map.js';
export { rerankerId, type Reranker, type RerankDocument, type DoRerankOptions, type DoRerankResult } from './context/rerank/spec.js';
export { rerankItems, type RerankOptions } from './context/rerank/rerank.js';
export { llmYesNoReranker } from './context/rerank/llm-yes-no.js';
export { apiReranker, type ApiRerankerOptions } from './context/rerank/api-reranker.js';
export { mmrReranker } from './context/rerank/mmr.js';
export { crossEncoderReranker, type CrossEncoderOptions } from './context/rerank/cross-encoder.js';
export { openAICompatibleChat, chatModelFromEnv, type OpenAICompatibleChatOptions } from './llm/openai-compatible.js';
export type { ChatModel, ChatMessage, ChatRequest, ChatResult } from './llm/spec.js';
