import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeIssues, tightestIssues, unknownKeysError, withMeantKeys } from './zod-issues.js';

const schema = z.object({ topK: z.number().int().min(1).max(1000), name: z.string().min(2).max(5) });
const issuesOf = (value: unknown) => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('accepted');
  return result.error.issues;
};

describe('reporting zod issues', () => {
  it('reports a value past two bounds of one key once, at the tighter bound', () => {
    const issues = issuesOf({ topK: 1e20, name: 'abc' });
    expect(issues.length).toBeGreaterThan(1); // zod itself reports both bounds
    expect(tightestIssues(issues)).toHaveLength(1);
    expect(describeIssues(issues, '(body)')).toBe('topK: Too big: expected number to be <=1000');
  });

  it('keeps every key that is wrong, names a whole-value issue by its root, and stops at the limit', () => {
    expect(describeIssues(issuesOf({ topK: 0, name: 'a' }), '(body)').split('; ')).toHaveLength(2);
    expect(describeIssues(issuesOf({ topK: 0, name: 'a' }), '(body)', 1).split('; ')).toHaveLength(1);
    expect(describeIssues(issuesOf(7), '(body)')).toMatch(/^\(body\): /);
  });
});

describe('withMeantKeys', () => {
  it("adds the key an unknown one most likely meant, at any depth of the request's schema", () => {
    const schema = z.strictObject({ query: z.string(), topK: z.number().optional(), filter: z.strictObject({ languages: z.array(z.string()) }).optional() });
    const result = schema.safeParse({ query: 'x', topk: 1, filter: { language: ['go'] }, zzz: 1 });
    expect(result.success).toBe(false);
    const message = describeIssues(withMeantKeys(result.success ? [] : result.error.issues, schema), '(body)');
    expect(message).toContain('Unrecognized keys: "topk", "zzz"; for "topk", did you mean "topK"?');
    expect(message).toContain('filter: Unrecognized key: "language"; did you mean "languages"?');
    expect(message).not.toContain('for "zzz"');
    expect(message).not.toContain('for "language"');
  });
});

describe('unknownKeysError', () => {
  const shape = { query: z.string(), topK: z.number().optional() };
  const schema = z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) });
  const messageOf = (value: unknown): string => {
    const result = schema.safeParse(value);
    return result.success ? '' : result.error.issues.map((issue) => issue.message).join(' | ');
  };

  it('names the key an unknown one meant, or the keys there are, and leaves other issues to zod', () => {
    expect(messageOf({ query: 'x', topk: 1 })).toBe('Unrecognized key: "topk"; did you mean "topK"?');
    expect(messageOf({ query: 'x', top_k: 1 })).toBe('Unrecognized key: "top_k"; did you mean "topK"?');
    expect(messageOf({ query: 'x', colour: 1, zz: 2 })).toBe('Unrecognized keys: "colour", "zz"; the keys are "query", "topK"');
    expect(messageOf({ query: 3 })).toMatch(/expected string/);
    expect(messageOf(7)).toMatch(/expected object/);
  });
});
