import { FILE_ROLE_VERSION } from '../sources/file-role.js';
import { IMPORTS_VERSION } from './imports.js';
import { codeChunker } from './code/code-chunker.js';
import { documentChunker } from './document.js';
import { lineWindowChunker, windowChunks } from './line-window.js';
import { LineTable } from './lines.js';
import { markdownChunker } from './markdown.js';
import type { ChunkDraft, ChunkInput, Chunker } from './spec.js';

const chunkers: readonly Chunker[] = [markdownChunker, codeChunker, documentChunker, lineWindowChunker];

/**
 * Changes whenever any chunker's output may change; stored with every file so a new
 * chunker version re-chunks the index.
 */
// Imports and roles are found with the chunks (catalog attributes), so their versions are part of it.
export const CHUNKER_FINGERPRINT = [...chunkers.map((chunker) => `${chunker.id}@${chunker.version}`), `imports@${IMPORTS_VERSION}`, `roles@${FILE_ROLE_VERSION}`].join('+');

/** Picks the chunker for a file: markdown sections, syntax, titled documents, line windows. */
export function chunkerFor(input: Pick<ChunkInput, 'language' | 'title'>): Chunker {
  if (markdownChunker.supports(input.language)) return markdownChunker;
  if (codeChunker.supports(input.language)) return codeChunker;
  if (input.title !== undefined && documentChunker.supports(input.language)) return documentChunker;
  if (input.language === 'text' || input.language === 'restructuredtext') return documentChunker;
  return lineWindowChunker;
}

/** What chunking made of one file, and whether it had to fall back to plain line windows. */
export interface ChunkOutcome {
  drafts: ChunkDraft[];
  /** Why the file's structure could not be used (`tree-sitter: definitions nest deeper…`). */
  fallback?: string;
}

/**
 * Chunks a file, falling back to line windows when its chunker gives up or fails on the
 * content (nesting too deep, a parser fault): one odd file never stops a run, and the
 * caller learns which path was taken.
 */
export async function chunkFileWithOutcome(input: ChunkInput): Promise<ChunkOutcome> {
  const chunker = chunkerFor(input);
  try {
    return { drafts: await chunker.chunk(input) };
  } catch (error) {
    if (chunker === lineWindowChunker) throw error;
    const why = error instanceof Error ? error.message : String(error);
    return { drafts: windowChunks(new LineTable(input.text), input), fallback: `${chunker.id}: ${why}` };
  }
}

export async function chunkFile(input: ChunkInput): Promise<ChunkDraft[]> {
  return (await chunkFileWithOutcome(input)).drafts;
}
