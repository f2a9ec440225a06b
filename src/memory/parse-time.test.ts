import { describe, expect, it } from 'vitest';
import { parseTime } from './parse-time.js';

describe('parseTime', () => {
  it('reads ISO dates, conversational times, RFC 2822 and epoch ms', () => {
    expect(parseTime('2024-05-08')).toBe(Date.UTC(2024, 4, 8));
    expect(parseTime('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseTime('2024-05-08T10:00:00Z')).toBe(Date.UTC(2024, 4, 8, 10));
    expect(parseTime('1:56 pm on 8 May, 2023')).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseTime('Tue, 08 May 2023 13:56:00 GMT')).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseTime(1_700_000_000_000)).toBe(1_700_000_000_000);
  });

  it('takes nothing it would have to guess: no year, an impossible day or month', () => {
    // V8's fallback parser reads these as 2001-01-01, 2001-05-08 and 2024-03-01.
    for (const text of ['-1', '12', 'May 8', '2024-02-30', '2023-02-29', '2026-13-45', '2026-00-10', 'soon', '']) expect(parseTime(text), text).toBeUndefined();
    expect(parseTime(Number.NaN)).toBeUndefined();
  });
});
