import { LociError } from '../errors/index.js';
import { meantChoice } from '../errors/meant-key.js';
import { fileRoles, type FileRole } from '../sources/file-role.js';
import type { Store } from '../store/spec.js';
import { roleOfEntry } from './role-priors.js';

const known: ReadonlySet<string> = new Set(fileRoles);

/** Checks role names from a caller; an unknown one is an error that lists the roles. */
export function parseRoles(names: readonly string[] | undefined, flag: string): FileRole[] | undefined {
  if (!names || names.length === 0) return undefined;
  const roles = names
    .flatMap((name) => name.split(','))
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = roles.filter((role) => !known.has(role));
  if (unknown.length > 0) {
    const meant = unknown.length === 1 ? meantChoice(unknown[0] as string, fileRoles) : '';
    throw new LociError('INVALID_ARGUMENT', `Unknown ${flag} "${unknown.join('", "')}".${meant}`, { hint: `Roles are ${fileRoles.join(', ')}.`, details: { unknown, roles: fileRoles } });
  }
  return [...new Set(roles)] as FileRole[];
}

const cache = new WeakMap<object, { token: string; paths: Map<string, FileRole> }>();

/**
 * The indexed paths whose role passes (in `include` if given, not in `exclude`), from the
 * catalog; remembered per store until anything is written.
 */
export async function pathsWithRoles(store: Store, include: readonly FileRole[] | undefined, exclude: readonly FileRole[] | undefined): Promise<string[]> {
  const token = await store.changeToken();
  let known = cache.get(store);
  if (!known || known.token !== token) {
    const paths = new Map<string, FileRole>();
    for (const entry of await store.listCatalog()) paths.set(entry.path, roleOfEntry(entry.path, entry));
    known = { token, paths };
    cache.set(store, known);
  }
  const wanted = include ? new Set(include) : undefined;
  const unwanted = new Set(exclude ?? []);
  const out: string[] = [];
  for (const [path, role] of known.paths) if ((!wanted || wanted.has(role)) && !unwanted.has(role)) out.push(path);
  return out;
}
