import { z } from 'zod';
import { searchModes } from '../config/schema.js';
import type { SearchOptions } from './search-types.js';
import { abortSignal, checkTypes, finite, strings } from '../errors/check-types.js';

export const searchOptions = z.looseObject({
  topK: finite.optional(),
  threshold: finite.optional(),
  minSimilarity: finite.optional(),
  paths: strings.optional(),
  pathPrefixes: strings.optional(),
  languages: strings.optional(),
  roles: strings.optional(),
  excludeRoles: strings.optional(),
  mode: z.enum(searchModes).optional(),
  files: z.boolean().optional(),
  explain: z.boolean().optional(),
  ranker: z.boolean().optional(),
  signal: abortSignal.optional(),
} satisfies Record<keyof SearchOptions, z.ZodType>);

/** The types of a library caller's search or symbol-lookup options (errors/check-types.ts). */
export function checkSearchOptions(options: unknown): void {
  checkTypes(searchOptions, options, 'search options', "{ topK: 10, languages: ['typescript'], mode: 'hybrid' }");
}
