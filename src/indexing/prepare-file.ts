import { extractImports } from '../chunk/imports.js';
import { chunkFileWithOutcome } from '../chunk/index.js';
import type { ChunkInput } from '../chunk/spec.js';
import type { TermTable } from '../lexical/codec.js';
import { classifyFileRole, type FileRole } from '../sources/file-role.js';
import { prepareChunks, type PreparedChunk } from './prepare-chunks.js';

/** One file's text and what its preparation needs (plain data: it crosses to the prepare worker). */
export interface PrepareFileInput {
  path: string;
  text: string;
  language: string;
  title?: string;
  chunking: Pick<ChunkInput, 'tokenBudget' | 'windowLines' | 'windowOverlap'>;
  pathIsContent: boolean;
}

/** A file ready to embed and write: its chunks with their lexical fields, imports and role. */
export interface PreparedFile {
  chunks: PreparedChunk[];
  /** Modules the file imports (chunk/imports.ts), kept in the catalog for ranking. */
  imports: string[];
  /** What the file is for (sources/file-role.ts), kept in the catalog for ranking and filters. */
  role: FileRole;
  /** Set when the file was cut into line windows instead of by its structure. */
  fallback?: string;
}

/**
 * Chunks a file and tokenizes each chunk once: all the CPU work before embedding and writing.
 * The chunks' term statistics point into `terms`, the run's list.
 */
export async function prepareFile(input: PrepareFileInput, terms: TermTable): Promise<PreparedFile> {
  const outcome = await chunkFileWithOutcome({ path: input.path, text: input.text, language: input.language, ...input.chunking, ...(input.title ? { title: input.title } : {}) });
  const chunks = prepareChunks(outcome.drafts, { path: input.path, language: input.language, pathIsContent: input.pathIsContent, terms });
  const role = input.pathIsContent ? classifyFileRole(input.path, input.language, input.text) : 'implementation';
  return { chunks, imports: extractImports(input.text, input.language, input.path), role, ...(outcome.fallback ? { fallback: outcome.fallback } : {}) };
}
