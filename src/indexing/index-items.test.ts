import { describe, expect, it } from 'vitest';
import { createGroupPolicy } from './index-items.js';

describe('commit groups', () => {
  it('start small, double per group up to the cap, and close by age', () => {
    let clock = 0;
    const groups = createGroupPolicy(() => clock);
    // The first group closes at 128 chunks or 64 files, whichever comes first.
    expect(groups.full(127, 10)).toBe(false);
    expect(groups.full(128, 10)).toBe(true);
    expect(groups.full(10, 64)).toBe(true);
    const limits: number[] = [];
    for (let group = 0; group < 8; group++) {
      let chunks = 1;
      while (!groups.full(chunks, 1)) chunks++;
      limits.push(chunks);
      groups.closed();
    }
    // 128 (the first group, still open), then 256, 512, 1,024 and 2,048 for ever.
    expect(limits).toEqual([128, 256, 512, 1024, 2048, 2048, 2048, 2048]);
    // A group that has been filling for a second closes with whatever it holds, but never empty.
    clock += 999;
    expect(groups.full(1, 1)).toBe(false);
    clock += 1;
    expect(groups.full(1, 1)).toBe(true);
    expect(groups.full(0, 0)).toBe(false);
    groups.closed();
    expect(groups.full(1, 1)).toBe(false);
  });
});
