import { fileRoles, type FileRole } from '../sources/file-role.js';

/** What the indexer keeps about a file beside its catalog entry (the `attributes` column). */
export interface FileAttributes {
  /** Modules the file imports (chunk/imports.ts), for the ranker's import-neighbour feature. */
  imports: readonly string[];
  /** What the file is for; absent on entries written before roles existed. */
  role?: FileRole;
}

const knownRoles: ReadonlySet<string> = new Set(fileRoles);

export function encodeFileAttributes(attributes: FileAttributes): string {
  return JSON.stringify({ imports: attributes.imports, ...(attributes.role ? { role: attributes.role } : {}) });
}

const NO_ATTRIBUTES: Readonly<FileAttributes> = Object.freeze({ imports: Object.freeze([]) });
/** Decoded attributes by their text: every ranked search reads a few hundred files' (most texts repeat). */
const decoded = new Map<string, Readonly<FileAttributes>>();
const DECODED_LIMIT = 4096;

/**
 * Lenient: attributes written by something else, or damaged, read as no imports and no role.
 * The result is shared and frozen (the same text decodes to the same object).
 */
export function decodeFileAttributes(text: string | undefined): Readonly<FileAttributes> {
  if (text?.[0] !== '{') return NO_ATTRIBUTES;
  const known = decoded.get(text);
  if (known) return known;
  let attributes = NO_ATTRIBUTES;
  try {
    const parsed = JSON.parse(text) as { imports?: unknown; role?: unknown };
    const imports = Object.freeze(Array.isArray(parsed.imports) ? parsed.imports.filter((value): value is string => typeof value === 'string') : []);
    attributes = Object.freeze(typeof parsed.role === 'string' && knownRoles.has(parsed.role) ? { imports, role: parsed.role as FileRole } : { imports });
  } catch {
    // damaged: no imports, no role
  }
  if (decoded.size >= DECODED_LIMIT) decoded.clear();
  decoded.set(text, attributes);
  return attributes;
}
