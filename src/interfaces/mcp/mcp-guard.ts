import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isLociError } from '../../errors/index.js';
import { unknownKeysError } from '../../errors/zod-issues.js';
import type { Roots } from '../shared/roots.js';
import { redactPaths } from '../shared/wire-paths.js';

export const rootField = z.string().optional().describe('Which served project to use (its folder name); default the first one.');

/**
 * A whole number in [min, max]. A value past a bound is reported at that bound alone: zod's
 * int check would also report the safe-integer bound (1e20 was "<=9007199254740991" and "<=50").
 */
export function boundedInt(min: number, max: number) {
  return z.number().min(min, { abort: true }).max(max, { abort: true }).int();
}

/**
 * A tool's arguments: no key beyond `shape` (advertised as `additionalProperties: false`), and
 * an unknown one is reported with the key it likely means (`topk`: did you mean "topK"?).
 */
export function toolInput<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) });
}

/**
 * A failing tool answers with isError and the error's message and hint, never a protocol
 * error. The one place MCP errors are put on the wire: no absolute paths of this machine.
 */
export async function guard(roots: Roots, action: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await action();
  } catch (error) {
    roots.noteError(error);
    const text = isLociError(error) ? `${error.code}: ${error.describe()}` : `Unexpected error: ${(error as Error).message}`;
    return { isError: true, content: [{ type: 'text', text: redactPaths(text, roots.list()) }] };
  }
}

export function round(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}
