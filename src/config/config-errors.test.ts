import { describe, expect, it } from 'vitest';
import { LociError } from '../errors/index.js';
import { resolveConfig } from './load.js';
import { parseConfigText } from './parse-file.js';

function problemsOf(values: Record<string, unknown>): Array<{ path: string; message: string }> {
  try {
    resolveConfig([{ origin: '--flags', values }]);
  } catch (error) {
    expect(error).toBeInstanceOf(LociError);
    return ((error as LociError).details as { problems: Array<{ path: string; message: string }> }).problems;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration errors', () => {
  it('report a value past two bounds of one key once, at the tighter bound', () => {
    const problems = problemsOf({ search: { topK: 1e20 } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: 'search.topK', message: expect.stringContaining('1000') });
  });

  it('still report every key that is wrong, and a value below its range', () => {
    const problems = problemsOf({ search: { topK: 0, threshold: -5 } });
    expect(problems.map((problem) => problem.path).sort()).toEqual(['search.threshold', 'search.topK']);
  });

  it('name the file a misspelled section came from, and the key it meant', () => {
    let message = '';
    try {
      resolveConfig([
        { origin: 'defaults', values: { search: { topK: 10 } } },
        { origin: '/work/shop/loci.config.json', values: { serch: { topK: 3 }, chunking: { tokenBudgett: 5 } } },
      ]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('serch (from /work/shop/loci.config.json): unknown key (did you mean "search"? known keys:');
    expect(message).toContain('chunking.tokenBudgett (from /work/shop/loci.config.json): unknown key (did you mean "tokenBudget"?');
  });
});

describe('a config file that is not JSON', () => {
  it('is named with the line and column of the mistake', () => {
    expect(() => parseConfigText('{\n  "embedder": "none",\n}\n', '/x/loci.config.json')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringMatching(/is not valid JSON: .* \(line 3, column 1\)\.$/), hint: expect.stringContaining('no trailing commas') }),
    );
  });
});
