/**
 * Time expressions in a recall query, resolved against the records' dates: "in May 2023",
 * "in June" (any year), "in 2022", "on 8 May 2023", "yesterday", "last week", "3 days ago".
 * Records dated inside a window get a recency-independent boost (memory.weights.temporal),
 * so "what did we decide last week" prefers last week's turns without excluding the rest
 * (an event is often mentioned after it happened).
 */
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = `(${MONTHS.map((name) => `${name}|${name.slice(0, 3)}`).join('|')})`;
const DAY_MS = 86_400_000;

/** A time window [since, until) in epoch ms, or a month of any year. */
export type TimeWindow = { since: number; until: number } | { monthOfYear: number };

export interface TemporalReference {
  /** The words of the query that named the time. */
  text: string;
  window: TimeWindow;
}

const monthIndex = (name: string): number => MONTHS.findIndex((month) => month.startsWith(name.toLowerCase().slice(0, 3)));
const monthWindow = (year: number, month: number): TimeWindow => ({ since: Date.UTC(year, month, 1), until: Date.UTC(year, month + 1, 1) });
const dayStart = (time: number): number => Math.floor(time / DAY_MS) * DAY_MS;

interface Rule {
  pattern: RegExp;
  resolve(match: RegExpExecArray, now: number): TimeWindow | undefined;
}

const UNIT_MS: Record<string, number> = { day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS, year: 365 * DAY_MS };

const RULES: Rule[] = [
  {
    // "8 May 2023", "May 8, 2023", "on 8 May, 2023"
    pattern: new RegExp(`\\b(?:(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH}|${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?),?\\s+((?:19|20)\\d\\d)\\b`, 'gi'),
    resolve: (match) => {
      const day = Number(match[1] ?? match[4]);
      const month = monthIndex((match[2] ?? match[3]) as string);
      const year = Number(match[5]);
      if (month < 0 || day < 1 || day > 31) return undefined;
      const since = Date.UTC(year, month, day);
      return { since, until: since + DAY_MS };
    },
  },
  {
    // "May 2023", "in October 2023"
    pattern: new RegExp(`\\b${MONTH},?\\s+((?:19|20)\\d\\d)\\b`, 'gi'),
    resolve: (match) => {
      const month = monthIndex(match[1] as string);
      return month < 0 ? undefined : monthWindow(Number(match[2]), month);
    },
  },
  {
    // "in June", "during March": that month in any year ("may" alone is too often a verb)
    pattern: new RegExp(`\\b(?:in|during|early|late|mid)\\s+${MONTH}\\b(?!,?\\s+(?:19|20)\\d\\d)(?!\\s+\\d)`, 'gi'),
    resolve: (match) => {
      const month = monthIndex(match[1] as string);
      return month < 0 ? undefined : { monthOfYear: month };
    },
  },
  {
    // "in 2022", "during 2019"
    pattern: /\b(?:in|during|of)\s+((?:19|20)\d\d)\b/gi,
    resolve: (match) => ({ since: Date.UTC(Number(match[1]), 0, 1), until: Date.UTC(Number(match[1]) + 1, 0, 1) }),
  },
  {
    pattern: /\b(today|tonight|this morning|yesterday|last night)\b/gi,
    resolve: (match, now) => {
      const today = dayStart(now);
      const word = (match[1] as string).toLowerCase();
      return word === 'yesterday' || word === 'last night' ? { since: today - DAY_MS, until: today } : { since: today, until: today + DAY_MS };
    },
  },
  {
    // "last week" = the 14 days before now (people say it of anything 7–14 days back), …
    pattern: /\b(last|this|past)\s+(week|month|year)\b/gi,
    resolve: (match, now) => {
      const unit = UNIT_MS[(match[2] as string).toLowerCase()] as number;
      return (match[1] as string).toLowerCase() === 'this' ? { since: now - unit, until: now + DAY_MS } : { since: now - 2 * unit, until: now + DAY_MS };
    },
  },
  {
    // "3 days ago", "two weeks ago": a window of one unit around that time
    pattern: /\b(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(day|week|month|year)s?\s+ago\b/gi,
    resolve: (match, now) => {
      const words = ['a', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
      const raw = (match[1] as string).toLowerCase();
      const count = /^\d+$/.test(raw) ? Number(raw) : raw === 'an' ? 1 : Math.max(1, words.indexOf(raw));
      const unit = UNIT_MS[(match[2] as string).toLowerCase()] as number;
      const center = now - count * unit;
      return { since: center - unit, until: center + unit };
    },
  },
];

/** The time expressions of a query; overlapping matches keep the first (most specific) rule's. */
export function temporalReferences(query: string, now: number): TemporalReference[] {
  const found: Array<TemporalReference & { start: number; end: number }> = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (let match = rule.pattern.exec(query); match; match = rule.pattern.exec(query)) {
      const start = match.index;
      const end = start + match[0].length;
      if (found.some((earlier) => start < earlier.end && end > earlier.start)) continue;
      const window = rule.resolve(match, now);
      if (window) found.push({ text: match[0], window, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start).map(({ text, window }) => ({ text, window }));
}

export function inWindow(time: number, window: TimeWindow): boolean {
  if ('monthOfYear' in window) return new Date(time).getUTCMonth() === window.monthOfYear;
  return time >= window.since && time < window.until;
}
