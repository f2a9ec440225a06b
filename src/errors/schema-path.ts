import type { z } from 'zod';

/** The schema inside optional, nullable, default and prefault wrappers. */
export function unwrapSchema(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 8; depth++) {
    const def = (current as unknown as { def: { innerType?: z.ZodType } }).def;
    if (!def?.innerType) return current;
    current = def.innerType;
  }
  return current;
}

/** The (unwrapped) schema at `path` inside `schema`: object keys by name, array elements by index; undefined where it has none. */
export function schemaAtPath(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current = unwrapSchema(schema);
  for (const key of path) {
    const { shape, def } = current as unknown as { shape?: Record<string, z.ZodType>; def?: { element?: z.ZodType } };
    const next = typeof key === 'number' && def?.element ? def.element : typeof key === 'string' && shape && Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!next) return undefined;
    current = unwrapSchema(next);
  }
  return current;
}
