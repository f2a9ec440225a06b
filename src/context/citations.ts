/** What an answer cites of the numbered context it was given. */
export interface Citations {
  /** The context numbers cited, within 1..`count`, ascending, once each. */
  cited: number[];
  /** Numbers written as citations that name no context (`[0]`, `[99]` of 6), ascending, once each. */
  unknown: number[];
}

const CITATION = /\[(\d{1,4}(?:\s*(?:[,;]|-|–)\s*\d{1,4})*)\]/g;

/**
 * The context numbers an answer cites: `[2]`, `[1, 3]`, `[1][4]`, `[2-4]` (the prompt asks the model
 * to cite the numbered context it uses as [n]). Code is not prose: brackets inside fenced or indented
 * blocks and inline code spans (`argv[2]`), or right after a name (`items[3]`), are not citations.
 */
export function readCitations(answer: string, count: number): Citations {
  const cited = new Set<number>();
  const unknown = new Set<number>();
  const prose = withoutCode(answer);
  let indexingEnd = -1;
  for (const match of prose.matchAll(CITATION)) {
    // `items[3]`, `argv[1][2]`: a bracket right after a name (or after such a bracket) indexes it.
    const before = prose[match.index - 1] ?? '';
    if (/[\p{L}\p{N}_$]/u.test(before) || (before === ']' && indexingEnd === match.index)) {
      indexingEnd = match.index + match[0].length;
      continue;
    }
    for (const part of (match[1] as string).split(/\s*[,;]\s*/)) {
      const [first, last = first] = part.split(/\s*[-–]\s*/).map(Number) as [number, number?];
      // A range is read only when short and ascending ([2-4]); [2020-2024] is not a citation.
      if (last < first || last - first > 20) continue;
      for (let n = first; n <= last; n++) (n >= 1 && n <= count ? cited : unknown).add(n);
    }
  }
  const ascending = (numbers: Set<number>) => [...numbers].sort((a, b) => a - b);
  return { cited: ascending(cited), unknown: ascending(unknown) };
}

/** The context numbers an answer cites, within 1..`count`, ascending, once each. */
export function citedNumbers(answer: string, count: number): number[] {
  return readCitations(answer, count).cited;
}

/**
 * The answer with its code blanked: fenced blocks (``` or ~~~, to their closing fence or the end),
 * indented blocks and inline spans (`…`, any run of backticks closed by the same run). Lengths are kept.
 */
function withoutCode(text: string): string {
  const blank = (code: string) => code.replace(/[^\n]/g, ' ');
  const unfenced = text.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|(?![\s\S]))/gm, blank);
  // Indented blocks: lines indented four spaces or a tab after a blank line (not a nested list item).
  const unindented = unfenced.replace(/(^|\n[ \t]*\n)((?:(?: {4}|\t)(?![ \t]*(?:[-*+]|\d+[.)])[ \t])[^\n]*(?:\n|$))+)/g, (_, lead: string, code: string) => lead + blank(code));
  return unindented.replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, blank);
}
