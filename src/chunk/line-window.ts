import type { ChunkDraft, ChunkInput, Chunker } from './spec.js';
import { LineTable } from './lines.js';
import { estimateTokens } from './token-count.js';

/**
 * Fixed windows of lines with overlap (Aye Chat: 100 lines, 10 overlap), shrunk to the
 * token budget; a single line longer than the budget (minified code) is cut by characters.
 */
export const lineWindowChunker: Chunker = {
  id: 'line-window',
  version: 1,
  supports: () => true,
  async chunk(input: ChunkInput): Promise<ChunkDraft[]> {
    return windowChunks(new LineTable(input.text), input);
  },
};

export function windowChunks(table: LineTable, input: Pick<ChunkInput, 'tokenBudget' | 'windowLines' | 'windowOverlap'>, range = { start: 1, end: table.count }): ChunkDraft[] {
  const chunks: ChunkDraft[] = [];
  const overlap = Math.min(input.windowOverlap, Math.max(0, input.windowLines - 1));
  let start = range.start;
  while (start <= range.end) {
    let end = Math.min(range.end, start + input.windowLines - 1);
    while (end > start && table.tokens(start, end) > input.tokenBudget) end--;
    if (end === start && table.tokens(start, start) > input.tokenBudget) {
      chunks.push(...splitLongLine(table, start, input.tokenBudget));
    } else {
      const trimmed = table.trim(start, end);
      if (trimmed) chunks.push({ startLine: trimmed.start, endLine: trimmed.end, text: table.text(trimmed.start, trimmed.end), kind: 'window' });
    }
    if (end >= range.end) break;
    // Step forward, keeping `overlap` lines, but always make progress.
    start = Math.max(start + 1, end + 1 - overlap);
  }
  return chunks;
}

function splitLongLine(table: LineTable, line: number, budget: number): ChunkDraft[] {
  const text = table.lines[line - 1] ?? '';
  if (text.trim() === '') return [];
  const pieces: ChunkDraft[] = [];
  // ~4 characters per token; re-measure each piece and shrink until it fits.
  let offset = 0;
  while (offset < text.length) {
    let length = Math.max(1, budget * 4);
    while (length > 16 && estimateTokens(text.slice(offset, offset + length)) > budget) length = Math.floor(length * 0.8);
    pieces.push({ startLine: line, endLine: line, text: text.slice(offset, offset + length), kind: 'window' });
    offset += length;
  }
  return pieces;
}
