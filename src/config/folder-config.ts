import { createHash } from 'node:crypto';
import { invalidConfigError } from './config-problems.js';
import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, isAbsolute, resolve } from 'node:path';
import { withPathsFrom } from './file-paths.js';
import { LociError } from '../errors/index.js';
import { misspelledFolderChoices, refusedFolderKeys, withoutPaths, type RefusedKey } from './folder-rules.js';
import { leafPaths, parseConfigText } from './parse-file.js';

/** The config file a folder carries; untrusted (see folder-rules.ts). */
export const FOLDER_CONFIG_FILE_NAME = 'loci.config.json';
const MAX_CONFIG_BYTES = 1_000_000;

export interface FolderConfigFile {
  /** `<root>/loci.config.json` as given. */
  path: string;
  /** The folder's real path (symlinks resolved): what trust is recorded against. */
  realRoot: string;
  /** sha256 of the file's bytes: trust covers this exact content only. */
  sha256: string;
  values: Record<string, unknown>;
}

/** Decides whether a folder config may set more than the local keys. */
export type FolderConfigTrust = boolean | ((file: FolderConfigFile) => boolean);

/**
 * Reads `<root>/loci.config.json`, or undefined when there is none. Read once, so the
 * content that is hashed is the content that is used; it must be a regular file inside the
 * folder (a link out of it, a FIFO or a huge file is refused).
 */
export function readFolderConfig(root: string): FolderConfigFile | undefined {
  const path = join(root, FOLDER_CONFIG_FILE_NAME);
  try {
    lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LociError('CONFIG_INVALID', `Cannot read config file ${path}: ${(error as Error).message}.`, { cause: error });
  }
  try {
    const realRoot = realpathSync(root);
    const realFile = realpathSync(path);
    const inside = relative(realRoot, realFile);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      throw new LociError('CONFIG_INVALID', `Config file ${path} links outside the folder; loci does not follow it.`, {
        hint: 'Replace the link with a regular file, or pass your own file with --config.',
      });
    }
    const stats = statSync(realFile);
    if (!stats.isFile()) throw new LociError('CONFIG_INVALID', `Config file ${path} is not a regular file.`, { hint: 'Replace it with a JSON file, or pass your own file with --config.' });
    if (stats.size > MAX_CONFIG_BYTES)
      throw new LociError('CONFIG_INVALID', `Config file ${path} is larger than ${MAX_CONFIG_BYTES} bytes.`, { hint: 'A loci config is a few lines of JSON; shorten it.' });
    const bytes = readFileSync(realFile);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    return { path, realRoot, sha256, values: parseConfigText(bytes.toString('utf8'), path) };
  } catch (error) {
    if (error instanceof LociError) throw error;
    throw new LociError('CONFIG_INVALID', `Cannot read config file ${path}: ${(error as Error).message}.`, { cause: error });
  }
}

/**
 * The layer a folder's config contributes. Untrusted, it may set only local keys; a key
 * that a later layer (the user's environment or flags) also sets is dropped instead of
 * refused, since the user's value wins. Anything else is refused with CONFIG_UNTRUSTED.
 */
export function folderConfigLayers(
  root: string,
  trust: FolderConfigTrust | undefined,
  laterLayers: ReadonlyArray<{ values: Record<string, unknown> }>,
): Array<{ origin: string; values: Record<string, unknown> }> {
  const file = readFolderConfig(root);
  if (!file) return [];
  const overridden = new Set(laterLayers.flatMap((layer) => leafPaths(layer.values)));
  const values = withoutPaths(file.values, overridden);
  const trusted = typeof trust === 'function' ? trust(file) : trust === true;
  if (!trusted) {
    const typos = misspelledFolderChoices(values);
    if (typos.length > 0) throw misspelledError(file, typos);
    const refused = refusedFolderKeys(values);
    if (refused.length > 0) throw untrustedError(file, refused);
  }
  // A relative file it names (once trusted) is read from the folder (file-paths.ts).
  return [{ origin: file.path, values: withPathsFrom(values, resolve(root)) }];
}

function misspelledError(file: FolderConfigFile, typos: ReturnType<typeof misspelledFolderChoices>): LociError {
  // The shape of any invalid configuration (one problem per value), which the CLI prints a line each.
  const problems = typos.map((typo) => ({ path: typo.path, origin: file.path, message: `${shortJson(typo.value)} is not a choice; did you mean ${JSON.stringify(typo.meant)}?` }));
  return invalidConfigError(problems, {
    hint: `Fix the spelling in ${file.path} (values are case-sensitive).`,
    details: { misspelled: typos.map(({ path, value, meant }) => ({ path, value: value.slice(0, 200), meant })) },
  });
}

function untrustedError(file: FolderConfigFile, refused: RefusedKey[]): LociError {
  const lines = refused.map((key) => `  ${key.path} = ${shortJson(key.value)} (from ${file.path}): ${key.reason}`);
  return new LociError('CONFIG_UNTRUSTED', `The folder's own config sets ${refused.length} key(s) that only your own configuration may set:\n${lines.join('\n')}\n`, {
    hint:
      `If you have read ${file.path} and trust it, run \`loci trust ${file.realRoot}\` once (recorded outside the folder, for this exact content; ` +
      'library: pass trustFolderConfig). Or set these keys yourself: your user config (~/.config/loci/config.json), --config FILE, LOCI_* variables or flags.',
    details: { file: file.path, sha256: file.sha256, refused: refused.map(({ path, reason, value }) => ({ path, reason, value: shortJson(value) })) },
  });
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  // Printable ASCII only: a hostile value must not drive the terminal.
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}
