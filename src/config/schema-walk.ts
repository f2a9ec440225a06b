import type { z } from 'zod';
import { schemaAtPath } from '../errors/schema-path.js';
import { configSchema } from './schema.js';

/** The (unwrapped) schema of a config path, or undefined when the schema has no such key. */
export function schemaAt(path: readonly string[]): z.ZodType | undefined {
  return schemaAtPath(configSchema, path);
}
