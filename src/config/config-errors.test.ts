import { describe, expect, it } from 'vitest';
import { LociError } from '../errors/index.js';
import { resolveConfig } from './load.js';

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
});
