import type { ChunkDraft, ChunkInput, Chunker } from './spec.js';
import { LineTable, splitRangeByBudget } from './lines.js';
import { windowChunks } from './line-window.js';

/**
 * Prose documents with a title (BEIR records, notes, memory): paragraphs packed up to the
 * budget, each piece carrying the title as its heading path. A single paragraph over the
 * budget is cut at sentence ends, so no piece loses the title's context.
 */
export const documentChunker: Chunker = {
  id: 'document',
  version: 1,
  supports: (language) => language === 'text',
  async chunk(input: ChunkInput): Promise<ChunkDraft[]> {
    const table = new LineTable(input.text);
    const headingPath = input.title ? [input.title] : [];
    const chunks: ChunkDraft[] = [];
    for (const piece of splitRangeByBudget(table, 1, table.count, input.tokenBudget)) {
      const range = table.trim(piece.start, piece.end);
      if (!range) continue;
      if (range.start === range.end && table.tokens(range.start, range.end) > input.tokenBudget) {
        chunks.push(...splitSentences(table.text(range.start, range.end), range.start, input.tokenBudget, headingPath));
        continue;
      }
      chunks.push({ startLine: range.start, endLine: range.end, text: table.text(range.start, range.end), headingPath, kind: 'document' });
    }
    return chunks;
  },
};

function splitSentences(text: string, line: number, budget: number, headingPath: string[]): ChunkDraft[] {
  const sentences = text.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [text];
  const chunks: ChunkDraft[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) chunks.push({ startLine: line, endLine: line, text: current.trim(), headingPath, kind: 'document' });
    current = '';
  };
  for (const sentence of sentences) {
    const candidate = current + sentence;
    if (current && new LineTable(candidate).tokens(1, 1) > budget) flush();
    current += sentence;
  }
  flush();
  return chunks.flatMap((chunk) =>
    new LineTable(chunk.text).tokens(1, 1) > budget
      ? windowChunks(new LineTable(chunk.text), { tokenBudget: budget, windowLines: 1, windowOverlap: 0 }).map((piece) => ({
          ...piece,
          startLine: line,
          endLine: line,
          headingPath,
          kind: 'document' as const,
        }))
      : [chunk],
  );
}
