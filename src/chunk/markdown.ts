import type { ChunkDraft, ChunkInput, Chunker } from './spec.js';
import { LineTable, splitRangeByBudget } from './lines.js';
import { windowChunks } from './line-window.js';

interface Section {
  start: number;
  end: number;
  headingPath: string[];
  /** Line of the section's own heading (undefined for text before the first heading). */
  headingLine?: number;
}

const atxHeading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const setextUnderline = /^ {0,3}(=+|-+)[ \t]*$/;
const fence = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Markdown by heading sections, keeping the heading path (["Guide", "Install"]). Headings
 * inside fenced code are ignored; a heading with no body is merged into what follows;
 * a section over budget is split at paragraph breaks.
 */
export const markdownChunker: Chunker = {
  id: 'markdown',
  version: 1,
  supports: (language) => language === 'markdown',
  async chunk(input: ChunkInput): Promise<ChunkDraft[]> {
    const table = new LineTable(input.text);
    const sections = mergeEmptySections(findSections(table, input.title), table);
    const chunks: ChunkDraft[] = [];
    for (const section of sections) {
      const trimmed = table.trim(section.start, section.end);
      if (!trimmed) continue;
      const symbol = section.headingPath[section.headingPath.length - 1];
      for (const piece of splitRangeByBudget(table, trimmed.start, trimmed.end, input.tokenBudget)) {
        const range = table.trim(piece.start, piece.end);
        if (!range) continue;
        if (range.start === range.end && table.tokens(range.start, range.end) > input.tokenBudget) {
          // one enormous line (a table row, an inlined blob): cut by characters
          for (const window of windowChunks(table, input, range)) chunks.push({ ...window, headingPath: section.headingPath, kind: 'section', ...(symbol ? { symbol } : {}) });
          continue;
        }
        const draft: ChunkDraft = { startLine: range.start, endLine: range.end, text: table.text(range.start, range.end), headingPath: section.headingPath, kind: 'section' };
        if (symbol) draft.symbol = symbol;
        chunks.push(draft);
      }
    }
    return chunks;
  },
};

function findSections(table: LineTable, title: string | undefined): Section[] {
  const sections: Section[] = [];
  const stack: Array<{ level: number; text: string }> = [];
  let current: Section = { start: 1, end: 0, headingPath: title ? [title] : [] };
  let inFence: string | undefined;
  const open = (line: number, level: number, text: string, startLine: number) => {
    current.end = startLine - 1;
    sections.push(current);
    while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
    stack.push({ level, text });
    current = { start: startLine, end: 0, headingPath: [...(title ? [title] : []), ...stack.map((entry) => entry.text)], headingLine: line };
  };
  for (let line = 1; line <= table.count; line++) {
    const text = (table.lines[line - 1] as string).replace(/\r$/, '');
    const fenceMatch = fence.exec(text);
    if (fenceMatch) {
      const marker = (fenceMatch[1] as string)[0] as string;
      if (!inFence) inFence = marker;
      else if (inFence === marker) inFence = undefined;
      continue;
    }
    if (inFence) continue;
    const atx = atxHeading.exec(text);
    if (atx) {
      open(line, (atx[1] as string).length, (atx[2] ?? '').trim(), line);
      continue;
    }
    const next = table.lines[line] !== undefined ? (table.lines[line] as string).replace(/\r$/, '') : undefined;
    const previousBlank = line === 1 || table.isBlank(line - 1);
    if (next !== undefined && text.trim() !== '' && previousBlank && setextUnderline.test(next) && !/^\s*([-*+]|\d+[.)])\s/.test(text)) {
      open(line, next.trim().startsWith('=') ? 1 : 2, text.trim(), line);
      line++; // the underline belongs to the heading
    }
  }
  current.end = table.count;
  sections.push(current);
  return sections.filter((section) => section.end >= section.start);
}

/** A heading followed directly by a sub-heading carries no text: fold it into the next section. */
function mergeEmptySections(sections: Section[], table: LineTable): Section[] {
  const merged: Section[] = [];
  let carryStart: number | undefined;
  for (const [index, section] of sections.entries()) {
    const bodyStart = section.headingLine !== undefined ? section.headingLine + 1 : section.start;
    const hasBody = table.trim(Math.max(bodyStart, section.start), section.end) !== undefined && !onlyUnderline(table, bodyStart, section.end);
    const isLast = index === sections.length - 1;
    if (!hasBody && section.headingLine !== undefined && !isLast) {
      carryStart ??= section.start;
      continue;
    }
    merged.push(carryStart !== undefined ? { ...section, start: carryStart } : section);
    carryStart = undefined;
  }
  return merged;
}

function onlyUnderline(table: LineTable, start: number, end: number): boolean {
  const range = table.trim(start, end);
  return range !== undefined && range.start === range.end && setextUnderline.test((table.lines[range.start - 1] as string).replace(/\r$/, ''));
}
