import { isPlainObject } from '../errors/check-types.js';
import { LociError } from '../errors/index.js';

/** Parses a config file's text; it must hold one JSON object. */
export function parseConfigText(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LociError('CONFIG_INVALID', `Config file ${path} is not valid JSON: ${(error as Error).message}.`, { cause: error });
  }
  if (!isPlainObject(value)) {
    throw new LociError('CONFIG_INVALID', `Config file ${path} must hold a JSON object, e.g. {"embedder": "none"}.`);
  }
  return value;
}

export { isPlainObject };

/** Dotted paths of the leaves of a config object (arrays are leaves). */
export function leafPaths(values: Record<string, unknown>, prefix: string[] = []): string[] {
  return Object.entries(values).flatMap(([key, value]) => {
    if (value === undefined) return [];
    return isPlainObject(value) ? leafPaths(value, [...prefix, key]) : [[...prefix, key].join('.')];
  });
}
