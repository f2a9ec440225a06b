import { fileRoles, type FileRole } from '../sources/file-role.js';

/** What the indexer keeps about a file beside its catalog entry (the `attributes` column). */
export interface FileAttributes {
  /** Modules the file imports (chunk/imports.ts), for the ranker's import-neighbour feature. */
  imports: string[];
  /** What the file is for; absent on entries written before roles existed. */
  role?: FileRole;
}

const knownRoles: ReadonlySet<string> = new Set(fileRoles);

export function encodeFileAttributes(attributes: FileAttributes): string {
  return JSON.stringify({ imports: attributes.imports, ...(attributes.role ? { role: attributes.role } : {}) });
}

/** Lenient: attributes written by something else, or damaged, read as no imports and no role. */
export function decodeFileAttributes(text: string | undefined): FileAttributes {
  if (text?.[0] !== '{') return { imports: [] };
  try {
    const parsed = JSON.parse(text) as { imports?: unknown; role?: unknown };
    const imports = Array.isArray(parsed.imports) ? parsed.imports.filter((value): value is string => typeof value === 'string') : [];
    return typeof parsed.role === 'string' && knownRoles.has(parsed.role) ? { imports, role: parsed.role as FileRole } : { imports };
  } catch {
    return { imports: [] };
  }
}
