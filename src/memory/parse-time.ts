const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * Parses the timestamps memories arrive with: ISO 8601, epoch ms, anything Date.parse
 * reads that names a four-digit year, and conversational forms such as "1:56 pm on 8 May,
 * 2023" (LoCoMo, chat exports). Returns epoch ms, or undefined when the text is not a time.
 * V8's fallback parser reads text with no year as 2001 ("May 8", "-1") and rolls impossible
 * days over ("2024-02-30" as 1 March): neither is taken as a time.
 */
export function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  const conversational = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(text);
  if (conversational) {
    const [, hour, minute, half, day, monthName, year] = conversational as unknown as [string, string, string, string, string, string, string];
    const month = months.findIndex((name) => name.startsWith(monthName.toLowerCase().slice(0, 3)));
    if (month >= 0) {
      const hours = (Number(hour) % 12) + (half.toLowerCase() === 'pm' ? 12 : 0);
      return Date.UTC(Number(year), month, Number(day), hours, Number(minute));
    }
  }
  if (!/(^|[^\d])\d{4}([^\d]|$)/.test(text)) return undefined;
  const isoDate = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (isoDate) {
    const [, year, month, day] = isoDate as unknown as [string, string, string, string];
    const last = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate(); // days in that month
    if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > last) return undefined;
  }
  const parsed = Date.parse(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}
