import { z } from 'zod';
import { configSchema } from './schema.js';

/** The schema inside optional/default/prefault wrappers. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 8; depth++) {
    const def = (current as unknown as { def: { innerType?: z.ZodType } }).def;
    if (!def.innerType) return current;
    current = def.innerType;
  }
  return current;
}

/** The (unwrapped) schema of a config path, or undefined when the schema has no such key. */
export function schemaAt(path: readonly string[]): z.ZodType | undefined {
  let shape: z.ZodType = configSchema;
  for (const key of path) {
    const inner = unwrap(shape);
    if (!(inner instanceof z.ZodObject)) return undefined;
    const next = (inner.shape as Record<string, z.ZodType>)[key];
    if (!next) return undefined;
    shape = next;
  }
  return unwrap(shape);
}
