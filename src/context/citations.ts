/**
 * The context numbers an answer cites: `[2]`, `[1, 3]`, `[1][4]`, `[2-4]`, within 1..`count`
 * (the prompt asks the model to cite the numbered context it uses as [n]). Ascending, once each.
 */
export function citedNumbers(answer: string, count: number): number[] {
  const cited = new Set<number>();
  for (const match of answer.matchAll(/\[(\d{1,4}(?:\s*(?:[,;]|-|–)\s*\d{1,4})*)\]/g)) {
    for (const part of (match[1] as string).split(/\s*[,;]\s*/)) {
      const [first, last = first] = part.split(/\s*[-–]\s*/).map(Number) as [number, number?];
      // A range is read only when short and ascending ([2-4]); [2020-2024] is not a citation.
      if (last < first || last - first > 20) continue;
      for (let n = first; n <= last; n++) if (n >= 1 && n <= count) cited.add(n);
    }
  }
  return [...cited].sort((a, b) => a - b);
}
