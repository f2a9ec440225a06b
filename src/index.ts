// The public API. Adding an export here makes it public: keep the list explicit.
export { createLoci, type CreateLociOptions, type Loci, type RunOptions } from './engine/create-loci.js';
export type { IndexStatus } from './engine/status-types.js';
export type { IndexEvent, IndexProgressListener, IndexSummary } from './indexing/events.js';
export type { LociDocument } from './indexing/index-documents.js';
export type { SearchOptions, SearchResponse, SearchResult, SignalScores } from './retrieve/search-types.js';

export { LociError, isLociError, errorCodes, type ErrorCode, type ErrorCategory } from './errors/index.js';
export { configSchema, loadConfig, searchModes, type LociConfig, type LociConfigInput, type SearchMode } from './config/index.js';

export { embedMany, RetryableEmbeddingError, type EmbedManyOptions, type EmbedManyResult } from './embed/embed-many.js';
export { embedderIdOf, type EmbeddingModel, type DoEmbedOptions, type DoEmbedResult, type EmbeddingPurpose } from './embed/spec.js';
export { registerEmbedder, listEmbedders, resolveEmbedder } from './embed/registry.js';

export { runEval, type EvalReport, type RunEvalOptions } from './eval/run-eval.js';
export type { SkipReason, SkipCounts } from './sources/spec.js';
export { LOCI_VERSION } from './version.js';
