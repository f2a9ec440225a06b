import { estimateTokens } from './token-count.js';

/** A file's lines (split on \n, any \r kept, so slices reproduce the file exactly). */
export class LineTable {
  readonly lines: string[];
  /** prefix[i] = tokens of lines 1..i (1-based), prefix[0] = 0. */
  private readonly prefix: Float64Array;

  constructor(text: string) {
    this.lines = text.split('\n');
    if (this.lines.length > 1 && this.lines[this.lines.length - 1] === '') this.lines.pop();
    this.prefix = new Float64Array(this.lines.length + 1);
    for (let index = 0; index < this.lines.length; index++) {
      this.prefix[index + 1] = (this.prefix[index] as number) + estimateTokens(this.lines[index] as string) + 1;
    }
  }

  get count(): number {
    return this.lines.length;
  }

  /** Tokens in lines start..end (1-based, inclusive). */
  tokens(start: number, end: number): number {
    if (end < start) return 0;
    return (this.prefix[end] as number) - (this.prefix[start - 1] as number);
  }

  text(start: number, end: number): string {
    return this.lines.slice(start - 1, end).join('\n');
  }

  isBlank(line: number): boolean {
    return (this.lines[line - 1] ?? '').trim() === '';
  }

  /** Narrows a range to exclude blank lines at its edges; undefined if all blank. */
  trim(start: number, end: number): { start: number; end: number } | undefined {
    let from = start;
    let to = end;
    while (from <= to && this.isBlank(from)) from++;
    while (to >= from && this.isBlank(to)) to--;
    return from <= to ? { start: from, end: to } : undefined;
  }
}

/**
 * Cuts lines start..end into pieces under `budget` tokens, preferring to cut after a
 * blank line in the second half of a piece. A single line over budget becomes its own piece.
 */
export function splitRangeByBudget(table: LineTable, start: number, end: number, budget: number): Array<{ start: number; end: number }> {
  const pieces: Array<{ start: number; end: number }> = [];
  let pieceStart = start;
  while (pieceStart <= end) {
    let pieceEnd = pieceStart;
    while (pieceEnd < end && table.tokens(pieceStart, pieceEnd + 1) <= budget) pieceEnd++;
    if (pieceEnd < end) {
      for (let line = pieceEnd; line > pieceStart + (pieceEnd - pieceStart) / 2; line--) {
        if (table.isBlank(line)) {
          pieceEnd = line;
          break;
        }
      }
    }
    pieces.push({ start: pieceStart, end: pieceEnd });
    pieceStart = pieceEnd + 1;
  }
  return pieces;
}
