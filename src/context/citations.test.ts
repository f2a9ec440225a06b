import { describe, expect, it } from 'vitest';
import { citedNumbers } from './citations.js';

describe('citedNumbers', () => {
  it('reads [n], lists, adjacent brackets and short ranges, within the numbered contexts', () => {
    expect(citedNumbers('Retries live in the gateway [2], configured in [1, 3] and [5][4].', 5)).toEqual([1, 2, 3, 4, 5]);
    expect(citedNumbers('See [2-4] and [2–3].', 9)).toEqual([2, 3, 4]);
    expect(citedNumbers('Out of range [0] [7] [12]; years [2020-2024]; an array a[i] or [x].', 6)).toEqual([]);
    expect(citedNumbers('No citations at all.', 3)).toEqual([]);
  });
});
