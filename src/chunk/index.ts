export { chunkFile, chunkFileWithOutcome, chunkerFor, CHUNKER_FINGERPRINT, type ChunkOutcome } from './chunk-file.js';
export { estimateTokens } from './token-count.js';
export type { ChunkDraft, ChunkInput, ChunkKind, Chunker } from './spec.js';
