export { chunkFile, chunkerFor, CHUNKER_FINGERPRINT } from './chunk-file.js';
export { estimateTokens } from './token-count.js';
export type { ChunkDraft, ChunkInput, ChunkKind, Chunker } from './spec.js';
