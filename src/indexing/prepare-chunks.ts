import type { ChunkDraft } from '../chunk/spec.js';
import { TermTable, type LexicalField } from '../lexical/codec.js';
import { fieldTokensOf, lexicalFieldsFrom } from '../lexical/fields.js';
import type { ChunkWrite } from '../store/spec.js';
import { chunkIdOf, sha256Hex } from '../sources/content-hash.js';

export interface PrepareOptions {
  path: string;
  language: string;
  /**
   * Whether the path means something (a file path) or is an opaque id (a document): only a
   * meaningful path is embedded with the text and searchable in the path field.
   */
  pathIsContent: boolean;
  /** The run's term list, which the chunks' term statistics point into (default: one for this call). */
  terms?: TermTable;
}

/** The lexical fields whose tokens make up a chunk's embedding input, in its order. */
export const EMBEDDED_FIELDS: readonly LexicalField[] = ['path', 'heading', 'body'];

export interface PreparedChunk {
  write: ChunkWrite;
  /**
   * What the embedded text holds before the chunk's text (its path when that is content, and
   * heading path, one a line), or '': see embeddingInputOf. Kept apart so a chunk crossing
   * from a prepare worker carries its text once.
   */
  embeddingContext: string;
  /**
   * Whether `tokenize(embeddingInputOf(chunk))` is the tokens counted in `write.termStats`' embedded
   * fields (EMBEDDED_FIELDS), so an embedder that reads loci's tokens can embed from those
   * counts (EmbeddingModel.doEmbedTermStats) with no second pass. False: embed the text.
   */
  embedsFromTerms: boolean;
}

/** Turns chunker output into store rows: content hashes, ids and code-aware lexical fields. */
export function prepareChunks(drafts: readonly ChunkDraft[], options: PrepareOptions): PreparedChunk[] {
  const pathText = options.pathIsContent ? options.path : '';
  const terms = options.terms ?? new TermTable();
  return drafts.map((draft) => {
    const headingPath = draft.headingPath ?? [];
    const symbols = uniqueSymbols(draft);
    const context = embeddingContextOf(pathText, headingPath);
    const embeddingInput = embeddedText(context, draft.text);
    const tokens = fieldTokensOf({ path: pathText, symbols: symbols.join(' '), heading: headingPath.join(' '), body: draft.text });
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
      ...lexicalFieldsFrom(tokens, terms),
    };
    if (draft.symbol) write.symbol = draft.symbol;
    // The embedding input is the path (when it is content), the heading path and the text, and
    // the separators between them are not word characters: its tokens are those fields' tokens.
    return { write, embeddingContext: context, embedsFromTerms: true };
  });
}

/** What the embedded text holds before a chunk's text: its path (when that is content) and heading path, one a line. */
export function embeddingContextOf(path: string, headingPath: readonly string[]): string {
  return [path, headingPath.join(' > ')].filter(Boolean).join('\n');
}

/** The embedded text: the context above the chunk's text. */
export function embeddedText(context: string, text: string): string {
  return context ? `${context}\n${text}` : text;
}

/** The exact text given to the embedder; `write.contentHash` is its hash. */
export function embeddingInputOf(chunk: { embeddingContext: string; write: Pick<ChunkWrite, 'text'> }): string {
  return embeddedText(chunk.embeddingContext, chunk.write.text);
}

function uniqueSymbols(draft: ChunkDraft): string[] {
  const all = [...(draft.symbol ? [draft.symbol] : []), ...(draft.symbols ?? [])];
  return [...new Set(all)];
}
