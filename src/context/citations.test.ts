import { describe, expect, it } from 'vitest';
import { citedNumbers, readCitations } from './citations.js';

describe('citedNumbers', () => {
  it('reads [n], lists, adjacent brackets and short ranges, within the numbered contexts', () => {
    expect(citedNumbers('Retries live in the gateway [2], configured in [1, 3] and [5][4].', 5)).toEqual([1, 2, 3, 4, 5]);
    expect(citedNumbers('See [2-4] and [2–3].', 9)).toEqual([2, 3, 4]);
    expect(citedNumbers('Out of range [0] [7] [12]; years [2020-2024]; an array a[i] or [x].', 6)).toEqual([]);
    expect(citedNumbers('No citations at all.', 3)).toEqual([]);
  });

  it('reads no citation inside inline code or fenced code blocks', () => {
    const answer = [
      'The script reads `argv[2]` and ``items[3]`` [1].',
      '```js',
      'const a = [4];',
      'a[5] = b[6];',
      '```',
      '~~~',
      'x[2]',
      '~~~',
      'Then it retries [3].',
      '```',
      'an unclosed fence [4] runs to the end',
    ].join('\n');
    expect(citedNumbers(answer, 6)).toEqual([1, 3]);
    const indented = ['It reads the list:', '', '    b = a[2]', '\tc = d[4]', '', 'and retries [3].', '', '    - a nested item citing [5]'].join('\n');
    expect(citedNumbers(indented, 6)).toEqual([3, 5]);
  });

  it('reads no citation in a bracket right after a name: items[3], sys.argv[1], args[0][2]', () => {
    expect(readCitations('items[3] holds it; in sys.argv[1] the name; Use ctx.args[0][2] here [5].', 6)).toEqual({ cited: [5], unknown: [] });
    expect(readCitations('Retries live in the gateway [2][4] (see the tests)[1].', 6)).toEqual({ cited: [1, 2, 4], unknown: [] });
  });
});

describe('readCitations', () => {
  it('names the numbers written as citations that no numbered context has', () => {
    expect(readCitations('It is in [2] and [99], see also [0] and [7-8].', 6)).toEqual({ cited: [2], unknown: [0, 7, 8, 99] });
    expect(readCitations('Nothing out of range [1].', 1)).toEqual({ cited: [1], unknown: [] });
  });
});
