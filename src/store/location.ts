import { isAbsolute, join, resolve } from 'node:path';
import { sha256Hex } from '../sources/content-hash.js';
import { LociError } from '../errors/index.js';
import type { Store, StoreUpgradeListener } from './spec.js';
import { parsePostgresUrl } from './postgres/connection.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

export type StoreLocation =
  | { kind: 'sqlite'; file: string; folder: string }
  | { kind: 'postgres'; url: string }
  /** Stores the caller opened (any `Store` implementation); memory is optional. */
  | { kind: 'instance'; index: Store; memory?: Store };

/** What `createLoci({ store })` accepts: a folder, a .db file, a postgres:// URL, or opened stores. */
export type StoreInput = string | Store | { index: Store; memory?: Store };

function isStore(value: unknown): value is Store {
  return typeof value === 'object' && value !== null && typeof (value as Store).scanIndexRows === 'function' && typeof (value as Store).getMeta === 'function';
}

export const DEFAULT_STORE_FOLDER = '.loci';
const DATABASE_FILE = 'index.db';

/**
 * Where an index lives: `<root>/.loci/index.db` by default; a folder (its `index.db`), a
 * `.db`/`.sqlite` file, or a postgres:// URL. Relative paths are relative to the root.
 */
export function resolveStoreLocation(root: string, store?: StoreInput): StoreLocation {
  if (typeof store === 'object') {
    if (isStore(store)) return { kind: 'instance', index: store };
    if (isStore(store.index) && (store.memory === undefined || isStore(store.memory))) return { kind: 'instance', index: store.index, ...(store.memory ? { memory: store.memory } : {}) };
    throw new LociError('INVALID_ARGUMENT', 'store must be a path, a postgres:// URL, a Store, or { index: Store, memory?: Store }.', {
      hint: 'Open a store with openPostgresStore (loci/postgres) or pass a path.',
    });
  }
  if (!store) {
    const folder = join(root, DEFAULT_STORE_FOLDER);
    return { kind: 'sqlite', folder, file: join(folder, DATABASE_FILE) };
  }
  if (/^postgres(ql)?:\/\//i.test(store)) return { kind: 'postgres', url: store };
  const absolute = isAbsolute(store) ? store : resolve(root, store);
  if (/\.(db|sqlite|sqlite3)$/i.test(absolute)) return { kind: 'sqlite', file: absolute, folder: resolve(absolute, '..') };
  return { kind: 'sqlite', folder: absolute, file: join(absolute, DATABASE_FILE) };
}

export async function openStore(
  location: StoreLocation,
  options: { create: boolean; namespaceSuffix?: string; keepCatalogEntries?: number; quickCheck?: boolean; onUpgrade?: StoreUpgradeListener },
): Promise<Store> {
  if (location.kind === 'instance') return location.index;
  const onUpgrade = options.onUpgrade ? { onUpgrade: options.onUpgrade } : {};
  if (location.kind === 'postgres')
    return openPostgresStore({ url: location.url, create: options.create, ...(options.namespaceSuffix ? { namespaceSuffix: options.namespaceSuffix } : {}), ...onUpgrade });
  return openSqliteStore({
    file: location.file,
    create: options.create,
    ...(options.keepCatalogEntries !== undefined ? { keepCatalogEntries: options.keepCatalogEntries } : {}),
    ...(options.quickCheck !== undefined ? { quickCheck: options.quickCheck } : {}),
    ...onUpgrade,
  });
}

/** Location text safe to print: a postgres URL loses its password and names its namespace (`…/db#namespace`). */
export function describeLocation(location: StoreLocation): string {
  if (location.kind === 'instance') return location.index.location;
  if (location.kind === 'sqlite') return location.file;
  try {
    const target = parsePostgresUrl(location.url);
    return `${target.display}#${target.namespace}`;
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/** The files of a SQLite store (with its memory database) that indexing a root must never read. */
export function storeFilePaths(location: StoreLocation, root: string, memoryDatabase: string): string[] {
  if (location.kind !== 'sqlite') return [];
  const { file, folder } = location;
  const memory = join(folder, memoryDatabase);
  if (folder === root) return [file, memory].flatMap((path) => [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]);
  return [folder, file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
}

/** Which index a vector graph belongs to: the code/document index, or agent memory. */
export type VectorGraphKind = 'index' | 'memory';

export { MEMORY_DATABASE } from './file-names.js';

/** Vector graph cache files: `vectors-<embedder hash>[-<format>].hnsw` and `memory-vectors-…` (+ `.keys`; `.<pid>.<random>.tmp` while saved, `.tmp` from older versions). */
export const VECTOR_GRAPH_FILE = /^(memory-)?vectors-([0-9a-f]{12})(?:-(g\d+))?\.hnsw(\.keys)?((?:\.[0-9]+\.[0-9a-z]+)?\.tmp)?$/;
/**
 * The graph layout the name carries: g2 = M 24 with 16-bit copies of the vectors (bf16 or f16,
 * graph-quantization.ts: the file's header says which, usearch reads either and adds to a graph
 * in its own type, so a graph first built in f16 stays f16 until it is built again). A file
 * of another layout (the unnamed f32 one before it) is never loaded: it is rebuilt, and
 * `loci gc` removes the old one.
 */
export const VECTOR_GRAPH_FORMAT = 'g2';

/** The one name of a vector graph file: per store folder, index or memory, and embedder (none for Postgres or no embedder). */
export function vectorGraphFile(location: StoreLocation, embedderId: string, kind: VectorGraphKind = 'index'): string | undefined {
  if (location.kind !== 'sqlite' || embedderId === 'none') return undefined;
  return join(location.folder, vectorGraphName(embedderId, kind));
}

export function vectorGraphName(embedderId: string, kind: VectorGraphKind = 'index'): string {
  return `${kind === 'memory' ? 'memory-' : ''}vectors-${sha256Hex(embedderId).slice(0, 12)}-${VECTOR_GRAPH_FORMAT}.hnsw`;
}

/** Segment files (a warm index saved whole): `segment-<embedder hash>.seg` and `memory-segment-…`. */
export const SEGMENT_FILE = /^(memory-)?segment-([0-9a-f]{12})\.seg(\.[0-9]+\.[0-9a-z]+(?:\.part[0-9]+)?\.tmp)?$/;

/** The one name of a segment file: per store folder, index or memory, and embedder (`none` too: lexical only). Absent for Postgres. */
export function segmentFile(location: StoreLocation, embedderId: string, kind: VectorGraphKind = 'index'): string | undefined {
  if (location.kind !== 'sqlite') return undefined;
  return join(location.folder, segmentName(embedderId, kind));
}

export function segmentName(embedderId: string, kind: VectorGraphKind = 'index'): string {
  return `${kind === 'memory' ? 'memory-' : ''}segment-${sha256Hex(embedderId).slice(0, 12)}.seg`;
}
