/** One piece of a file, as a chunker cuts it. Lines are 1-based and inclusive. */
export interface ChunkDraft {
  startLine: number;
  endLine: number;
  text: string;
  /** The main symbol this chunk defines (`parseConfig`, `UserService.find`), if any. */
  symbol?: string;
  /** Every symbol name defined inside this chunk, outermost first. */
  symbols?: string[];
  /** Markdown heading path (["Guide", "Install"]) or a document title. */
  headingPath?: string[];
  kind: ChunkKind;
}

export type ChunkKind = 'code' | 'section' | 'window' | 'document';

export interface ChunkInput {
  path: string;
  text: string;
  language: string;
  /** Approximate token budget per chunk. */
  tokenBudget: number;
  /** Line-window fallback size and overlap. */
  windowLines: number;
  windowOverlap: number;
  /** A document title to carry as heading (BEIR documents, memory records). */
  title?: string;
}

/** A chunker for some languages. `version` bumps whenever its output changes. */
export interface Chunker {
  readonly id: string;
  readonly version: number;
  supports(language: string): boolean;
  chunk(input: ChunkInput): Promise<ChunkDraft[]>;
}
