// Keeps the cost of ignore matching bounded whatever an ignore file says. Ignore patterns
// compile to regular expressions; each `**` between folders becomes a repetition over path
// segments, and a pattern with several of them backtracks polynomially in the path's depth
// (`**/a/**/a/**/a/**/a/**/a/**/a/**/b`, 34 bytes, grows as depth^7: ~1 s for a chain of
// 30 folders, minutes for 60; a degree-2 pattern costs ~45 µs per path 64 folders deep).
// So runs of `**` are folded into one (same meaning), and a pattern that still has more
// than MAX_PATTERN_DEGREE such repetitions, is very long, or comes after too many others
// is not applied, and the caller reports it. The walk's depth cap bounds the rest.

// Repetitions over path segments a pattern may hold: `**/a/**/b` (2) is fine, one more is refused.
export const MAX_PATTERN_DEGREE = 2;
export const MAX_PATTERN_LENGTH = 1024;
export const MAX_PATTERNS_PER_SOURCE = 5000;

export interface PatternBudget {
  /** The patterns to apply, in order (blank lines and comments kept: the matcher drops them). */
  kept: string[];
  /** Patterns not applied, with why. */
  refused: Array<{ pattern: string; why: string }>;
}

/** Splits ignore-file text or a pattern list, folds `**` runs and refuses patterns too costly to match. */
export function budgetPatterns(patterns: readonly string[]): PatternBudget {
  const budget: PatternBudget = { kept: [], refused: [] };
  let active = 0;
  for (const line of patterns) {
    const body = line.replace(/^!/, '').trim();
    if (body === '' || line.startsWith('#')) {
      budget.kept.push(line);
      continue;
    }
    if (line.length > MAX_PATTERN_LENGTH) {
      budget.refused.push({ pattern: line, why: `longer than ${MAX_PATTERN_LENGTH} characters` });
      continue;
    }
    if (active >= MAX_PATTERNS_PER_SOURCE) {
      budget.refused.push({ pattern: line, why: `more than ${MAX_PATTERNS_PER_SOURCE} patterns in one source` });
      continue;
    }
    const folded = foldGlobstars(line);
    const degree = degreeOf(folded.replace(/^!/, '').trim());
    if (degree > MAX_PATTERN_DEGREE) {
      budget.refused.push({ pattern: line, why: `more than ${MAX_PATTERN_DEGREE} "**" spanning folders (matching it could take minutes)` });
      continue;
    }
    budget.kept.push(folded);
    active++;
  }
  return budget;
}

// `a/**/**/b` means `a/**/b`, and `**/**/x` means `**/x`: git reads both the same way.
export function foldGlobstars(pattern: string): string {
  return pattern.replace(/(^|\/)\*\*(?:\/\*\*)+(?=\/|$)/g, '$1**');
}

// The number of repetitions over path segments the compiled pattern holds: each `**`
// segment that is not the pattern's first or last segment, plus one when the pattern may
// start at any folder (no slash before its end, or a leading `**/`).
export function degreeOf(pattern: string): number {
  const segments = pattern.split('/');
  let middle = 0;
  for (let index = 1; index < segments.length - 1; index++) if (segments[index] === '**') middle++;
  const innerSlash = pattern.slice(0, -1).includes('/');
  const floating = !innerSlash || segments[0] === '**';
  return middle + (floating ? 1 : 0);
}
