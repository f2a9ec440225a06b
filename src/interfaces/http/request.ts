import type { Context } from 'hono';
import type { z } from 'zod';
import { LociError } from '../../errors/index.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../shared/json-limits.js';
import { describeIssues, withMeantKeys } from '../../errors/zod-issues.js';

/** Reads and validates a JSON body with a zod schema; every problem is named in one INVALID_ARGUMENT. */
export async function parseBody<T extends z.ZodType>(c: Context, schema: T, optional = false): Promise<z.infer<T>> {
  const text = await c.req.text();
  if (optional && text.trim() === '') return schema.parse({});
  // Checked before parsing: zod, the store and JSON.stringify recurse and would overflow.
  if (jsonDepthExceeds(text))
    throw new LociError('INVALID_ARGUMENT', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, { hint: 'Send flat JSON; metadata values are plain objects a few levels deep.' });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LociError('INVALID_ARGUMENT', 'The request body is not valid JSON.', { hint: 'Send Content-Type: application/json with a JSON object.' });
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    throw new LociError('INVALID_ARGUMENT', `Invalid request: ${describeIssues(withMeantKeys(result.error.issues, schema), '(body)')}.`);
  }
  return result.data;
}

export function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

/** A query-string integer in a range, or INVALID_ARGUMENT naming it. */
export function queryInt(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) throw new LociError('INVALID_ARGUMENT', `${name} must be an integer from ${min} to ${max}; got "${value.slice(0, 40)}".`);
  return parsed;
}
