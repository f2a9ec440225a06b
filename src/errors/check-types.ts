import { z } from 'zod';
import { LociError } from './loci-error.js';
import { describeIssues } from './zod-issues.js';

/**
 * The types of what a JavaScript caller passes the library, checked where it enters: a string
 * where a list belongs (`languages: 'ts'`), a number for a query, or a mode that does not exist
 * gave a raw TypeError deep inside, or was ignored (`mode: 'semantic'` ran hybrid). Only types
 * are checked here; ranges and meanings stay with the code that uses them. Keys not listed
 * pass (a caller may share one options object between calls).
 */
export const strings = z.array(z.string());
export const abortSignal = z.custom<AbortSignal>((value) => value instanceof AbortSignal, 'expected an AbortSignal');
export const finite = z.number().finite();

export function checkTypes(schema: z.ZodType, value: unknown, what: string, example: string): void {
  if (value === undefined) return;
  const result = schema.safeParse(value);
  if (!result.success) throw new LociError('INVALID_ARGUMENT', `Invalid ${what}: ${describeIssues(result.error.issues, '(options)', 3)}.`, { hint: `For example ${example}.` });
}

export function checkText(value: unknown, what: string): void {
  if (typeof value !== 'string') throw new LociError('INVALID_ARGUMENT', `The ${what} must be a string; got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}.`);
}
