import { isPlainObject } from '../errors/check-types.js';
import { LociError } from '../errors/index.js';

/** Parses a config file's text; it must hold one JSON object. */
export function parseConfigText(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    // Node says where as a character offset; a person editing the file wants the line and column.
    const offset = /at position (\d+)/.exec(message)?.[1];
    const where = offset === undefined ? '' : ` (line ${lineColumn(text, Number(offset))})`;
    throw new LociError('CONFIG_INVALID', `Config file ${path} is not valid JSON: ${message}${where}.`, {
      cause: error,
      hint: `Fix the JSON in ${path}: one object of keys and values, e.g. {"embedder": "none"} (no comments, no trailing commas).`,
    });
  }
  if (!isPlainObject(value)) {
    throw new LociError('CONFIG_INVALID', `Config file ${path} must hold a JSON object, e.g. {"embedder": "none"}.`);
  }
  return value;
}

/** `3, column 14` for a character offset into `text`. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}, column ${offset - before.lastIndexOf('\n')}`;
}

export { isPlainObject };

/** Dotted paths of the leaves of a config object (arrays are leaves). */
export function leafPaths(values: Record<string, unknown>, prefix: string[] = []): string[] {
  return Object.entries(values).flatMap(([key, value]) => {
    if (value === undefined) return [];
    return isPlainObject(value) ? leafPaths(value, [...prefix, key]) : [[...prefix, key].join('.')];
  });
}
