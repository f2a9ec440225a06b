import { existsSync, statSync } from 'node:fs';
import { assertRootFolder } from '../../sources/root-folder.js';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { isRemoteSource, redactUrl, remoteCachePath } from '../../sources/remote-repo.js';
import { folderConfigLayers } from '../../config/folder-config.js';
import { seedAliasLayer } from '../../config/aliases.js';
import { environmentLayer, readConfigFile, resolveConfig, type ConfigLayer } from '../../config/load.js';
import type { LociConfig } from '../../config/schema.js';
import { describeUnknownVariable, unknownVariables } from '../../config/variables.js';
import { LociError } from '../../errors/index.js';
import { printable } from './format.js';
import { isTrustedFolder, readTrustedFolders } from './trusted-folders.js';

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** Flag values mapped onto config paths, with the flag named for error messages. */
export type FlagValues = Array<{ path: string; flag: string; value: unknown }>;

/** Where remote repositories are cloned: LOCI_CACHE_DIR, else $XDG_CACHE_HOME/loci/repos, else ~/.cache/loci/repos. */
export function repoCacheDir(io: CliIo): string {
  if (io.env.LOCI_CACHE_DIR) return resolve(io.cwd, io.env.LOCI_CACHE_DIR);
  return join(io.env.XDG_CACHE_HOME ?? join(io.env.HOME ?? homedir(), '.cache'), 'loci', 'repos');
}

/** Only the CLI resolves defaults from the cwd; the library is always given a root. A repository URL means its clone in the cache. */
export function resolveRoot(io: CliIo, dir: string | undefined, options: { mustExist: boolean }): string {
  if (dir && isRemoteSource(dir)) {
    const clone = remoteCachePath(dir, repoCacheDir(io));
    if (options.mustExist && !existsSync(clone)) throw new LociError('INDEX_NOT_FOUND', `${redactUrl(dir)} has not been indexed yet.`, { hint: `Run loci index ${redactUrl(dir)} first.` });
    return clone;
  }
  const root = resolve(io.cwd, dir ?? '.');
  if (options.mustExist) assertRootFolder(root);
  return root;
}

/** The folder a store lives in by default (`<root>/.loci`). */
const STORE_FOLDER = '.loci';

/**
 * The root for commands that read an index. Given --root (or a URL), that. Given --store (or
 * LOCI_STORE): a store kept in a `.loci` folder belongs to the folder above it; any other
 * store location is read against the current folder, and stderr says so. Otherwise the
 * nearest folder, from the current one upwards, that has a `.loci` index (as git finds
 * `.git`). When that is not the current folder, stderr says which root is used, so output
 * never silently comes from elsewhere. (The root a store recorded is not trusted: a planted
 * store must not choose which folder's files are read.)
 */
export function resolveIndexedRoot(io: CliIo, dir: string | undefined, options: { store?: string | undefined; quiet?: boolean } = {}): string {
  if (dir !== undefined) return resolveRoot(io, dir, { mustExist: true });
  const store = options.store ?? io.env.LOCI_STORE;
  const start = resolve(io.cwd);
  if (store !== undefined && store !== '') {
    if (/^postgres(ql)?:\/\//i.test(store)) return resolveRoot(io, undefined, { mustExist: true });
    const location = resolve(io.cwd, store);
    const folder = /\.db$/i.test(location) ? dirname(location) : location;
    if (basename(folder) === STORE_FOLDER && isDirectory(dirname(folder))) {
      const owner = dirname(folder);
      if (owner !== start && !options.quiet) io.stderr.write(`loci: using ${owner} as the root of the store ${folder} (the folder that holds its ${STORE_FOLDER}/)\n`);
      return owner;
    }
    if (!options.quiet) io.stderr.write(`loci: reading the store ${location} against the current folder ${start}; pass --root to name the folder it indexes\n`);
    return resolveRoot(io, undefined, { mustExist: true });
  }
  for (let folder = start; ; ) {
    if (isDirectory(join(folder, STORE_FOLDER))) {
      if (folder !== start && !options.quiet) io.stderr.write(`loci: using the index of ${folder} (the nearest folder above with ${STORE_FOLDER}/)\n`);
      return folder;
    }
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return resolveRoot(io, undefined, { mustExist: true });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The user's own settings: $XDG_CONFIG_HOME/loci, else ~/.config/loci. Only the CLI reads it. */
export function userConfigDir(io: CliIo): string {
  const xdg = io.env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(io.env.HOME ?? homedir(), '.config'), 'loci');
}

export const userConfigFile = (io: CliIo) => join(userConfigDir(io), 'config.json');
export const trustedFoldersFile = (io: CliIo) => join(userConfigDir(io), 'trusted-folders.json');

/**
 * Trusted layers, lowest first: the seed agents' variables, the user config file, --config, LOCI_* variables, flags.
 * `later` are the ones a folder config sits beneath.
 */
function trustedLayers(io: CliIo, flags: FlagValues, configFile: string | undefined): { base: ConfigLayer[]; later: ConfigLayer[] } {
  // The seed agents' variable names (EMBEDDING_MODEL, SIMILARITY_LIMIT, …) sit below everything of loci's own.
  const base: ConfigLayer[] = [seedAliasLayer(io.env)];
  const userFile = userConfigFile(io);
  const fromUser = readConfigFile(userFile, false);
  if (fromUser) base.push({ origin: userFile, values: fromUser });
  if (configFile) {
    const file = resolve(io.cwd, configFile);
    base.push({ origin: file, values: readConfigFile(file, true) ?? {} });
  }
  const values: Record<string, unknown> = {};
  const originOfPath = new Map<string, string>();
  for (const { path, flag, value } of flags) {
    if (value === undefined) continue;
    setPath(values, path.split('.'), value);
    originOfPath.set(path, flag);
  }
  return { base, later: [environmentLayer(io.env), { origin: 'flags', values, originOfPath }] };
}

/** The config from trusted sources only (before a folder is known, e.g. to clone it). */
export function trustedCliConfig(io: CliIo, flags: FlagValues, configFile?: string): LociConfig {
  const { base, later } = trustedLayers(io, flags, configFile);
  return warnedOnce(io, resolveConfig([...base, ...later]));
}

const warned = new WeakSet<CliIo>();

/** Names each LOCI_* variable set that loci does not read (a misspelling), once per command. */
function warnedOnce(io: CliIo, config: LociConfig): LociConfig {
  if (warned.has(io)) return config;
  warned.add(io);
  for (const unknown of unknownVariables(io.env, config)) io.stderr.write(`${printable(describeUnknownVariable(unknown))}\n`);
  return config;
}

/**
 * user config < the root's loci.config.json (untrusted: local keys only, unless `loci trust`
 * recorded this exact file; --config replaces it) < --config < LOCI_* variables < flags.
 */
export function loadCliConfig(io: CliIo, root: string, flags: FlagValues, configFile?: string): LociConfig {
  const { base, later } = trustedLayers(io, flags, configFile);
  const folder = configFile ? [] : folderConfigLayers(root, (file) => isTrustedFolder(readTrustedFolders(trustedFoldersFile(io)), file), later);
  const config = warnedOnce(io, resolveConfig([...base, ...folder, ...later]));
  if (config.store && !/^postgres(ql)?:\/\//i.test(config.store)) {
    // A --store flag is relative to the shell's cwd; one from a config file or env, to the root.
    const fromFlag = flags.some((flag) => flag.path === 'store' && flag.value !== undefined);
    config.store = resolve(fromFlag ? io.cwd : root, config.store);
  }
  return config;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const child = (node[key] as Record<string, unknown> | undefined) ?? {};
    node[key] = child;
    node = child;
  }
  node[path[path.length - 1] as string] = value;
}

/** Parses a numeric flag; bad text is passed through so the config error names the flag. */
export function numberFlag(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  return value.trim() !== '' && Number.isFinite(parsed) ? parsed : value;
}
