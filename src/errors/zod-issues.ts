import type { z } from 'zod';
import { meantKey } from './meant-key.js';
import { schemaAtPath } from './schema-path.js';

type Issue = z.core.$ZodIssue;

/**
 * The issues worth reporting: a value past two bounds of one key (`1e20` for an integer of at
 * most 1,000: beyond the safe integers and beyond 1,000) is reported once, at the tighter bound.
 */
export function tightestIssues(issues: readonly Issue[]): Issue[] {
  // A lower bound is compared negated, so for both kinds the smaller value is the tighter one.
  const bound = (issue: Issue): number | undefined => (issue.code === 'too_big' ? Number(issue.maximum) : issue.code === 'too_small' ? -Number(issue.minimum) : undefined);
  const keyOf = (issue: Issue): string => `${issue.code} ${issue.path.map(String).join('.')}`;
  const tightest = new Map<string, { issue: Issue; bound: number }>();
  for (const issue of issues) {
    const own = bound(issue);
    if (own === undefined) continue;
    const kept = tightest.get(keyOf(issue));
    if (!kept || own < kept.bound) tightest.set(keyOf(issue), { issue, bound: own });
  }
  return issues.filter((issue) => bound(issue) === undefined || tightest.get(keyOf(issue))?.issue === issue);
}

/** `path: message; path: message` for the issues worth reporting (at most `limit`); `root` names an issue of the whole value. */
export function describeIssues(issues: readonly Issue[], root: string, limit = Number.POSITIVE_INFINITY): string {
  return tightestIssues(issues)
    .slice(0, limit)
    .map((issue) => `${issue.path.join('.') || root}: ${issue.message}`)
    .join('; ');
}

/**
 * The issues with each unknown key's likely meaning added (`Unrecognized key: "topk"; did you
 * mean "topK"?`), read from the object schema at the issue's path.
 */
export function withMeantKeys(issues: readonly Issue[], schema: z.ZodType): Issue[] {
  return issues.map((issue) => {
    if (issue.code !== 'unrecognized_keys') return issue;
    const known = objectKeysAt(schema, issue.path);
    if (!known) return issue;
    const hints = meantKeyHints(issue.keys, known);
    return hints ? { ...issue, message: `${issue.message}; ${hints}` } : issue;
  });
}

/**
 * `did you mean "topK"?` for one unknown key, `for "topk", did you mean "topK"?` for each of
 * several with a likely meaning; undefined for none.
 */
function meantKeyHints(keys: readonly string[], known: readonly string[]): string | undefined {
  const hints = keys.flatMap((key) => {
    const meant = meantKey(key, known);
    if (!meant) return [];
    return [keys.length === 1 ? `did you mean "${meant}"?` : `for "${key}", did you mean "${meant}"?`];
  });
  return hints.length > 0 ? hints.join('; ') : undefined;
}

/**
 * A zod `error` option for a strict object whose unknown keys are reported with the key each
 * likely means, for schemas validated where the issues cannot be rewritten afterwards (the MCP
 * SDK checks tool arguments itself); other issues keep zod's message.
 */
export function unknownKeysError(known: readonly string[]): (issue: { code?: string; keys?: readonly string[] }) => string | undefined {
  return (issue) => {
    if (issue.code !== 'unrecognized_keys' || !issue.keys) return undefined;
    const keys = issue.keys;
    const listed = `Unrecognized key${keys.length === 1 ? '' : 's'}: ${keys.map((key) => JSON.stringify(key)).join(', ')}`;
    const hints = meantKeyHints(keys, known);
    return `${listed}; ${hints ?? `the keys are ${known.map((key) => JSON.stringify(key)).join(', ')}`}`;
  };
}

/** The keys of the object schema at `path`, if there is one. */
function objectKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  const shape = (schemaAtPath(schema, path) as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : undefined;
}
