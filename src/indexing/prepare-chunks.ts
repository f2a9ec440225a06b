import type { ChunkDraft } from '../chunk/spec.js';
import { tokenize } from '../retrieve/tokenize.js';
import type { ChunkWrite } from '../store/spec.js';
import { chunkIdOf, sha256Hex } from './hash.js';

export interface PrepareOptions {
  path: string;
  language: string;
  /** Prefix embedded texts with the file path (helps code; noise for documents). */
  includePathInEmbedding: boolean;
}

export interface PreparedChunk {
  write: ChunkWrite;
  /** The exact text given to the embedder; `write.contentHash` is its hash. */
  embeddingInput: string;
}

/** Turns chunker output into store rows: content hashes, ids and code-aware lexical fields. */
export function prepareChunks(drafts: readonly ChunkDraft[], options: PrepareOptions): PreparedChunk[] {
  const pathTokens = tokenize(options.path).join(' ');
  return drafts.map((draft) => {
    const headingPath = draft.headingPath ?? [];
    const symbols = uniqueSymbols(draft);
    const context = [options.includePathInEmbedding ? options.path : '', headingPath.join(' > ')].filter(Boolean).join('\n');
    const embeddingInput = context ? `${context}\n${draft.text}` : draft.text;
    const contentHash = sha256Hex(embeddingInput);
    const write: ChunkWrite = {
      chunkId: chunkIdOf(options.path, draft.startLine, contentHash),
      contentHash,
      startLine: draft.startLine,
      endLine: draft.endLine,
      language: options.language,
      kind: draft.kind,
      symbols,
      headingPath,
      text: draft.text,
      lexical: {
        path: pathTokens,
        symbols: tokenize(symbols.join(' ')).join(' '),
        heading: tokenize(headingPath.join(' ')).join(' '),
        body: tokenize(draft.text).join(' '),
      },
    };
    if (draft.symbol) write.symbol = draft.symbol;
    return { write, embeddingInput };
  });
}

function uniqueSymbols(draft: ChunkDraft): string[] {
  const all = [...(draft.symbol ? [draft.symbol] : []), ...(draft.symbols ?? [])];
  return [...new Set(all)];
}
