import { readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, posix, resolve } from 'node:path';
import { LociError, throwIfAborted } from '../errors/index.js';
import { openNoFollow, readRegularFile } from './bounded-read.js';
import { classifyPaths } from './classify-paths.js';
import { decodeSourceText } from './read-source.js';
import { findSecret } from './secret-rules.js';
import type { SkipReason } from './spec.js';
import { realRelativePath, realTargetSkip } from './target-rules.js';

export interface SafeReaderOptions {
  /** The project folder; nothing outside it (after symlinks) is read. */
  root: string;
  /** Per-file cap (sources.maxFileBytes). */
  maxFileBytes: number;
  /** Total bytes this reader reads (one request); default 8 MB. */
  budgetBytes?: number;
  exclude?: readonly string[];
  respectGitignore?: boolean;
  /** The store and anything else never read, as absolute paths. */
  excludeAbsolutePaths?: readonly string[];
  /** Serve secrets files and content too (the user's own opt-in only). */
  indexSecrets?: boolean;
}

export interface SafeFile {
  /** Relative to the root, POSIX. */
  path: string;
  text: string;
  bytes: number;
}

export interface SafeReadMany {
  files: SafeFile[];
  /** Paths refused, with the error each one got (only with `skipRefused`). */
  refused: Array<{ path: string; error: LociError }>;
}

export interface SafeReader {
  /** Reads one file the rules allow, or throws a LociError naming the path relative to the root. */
  read(path: string, options?: { signal?: AbortSignal }): Promise<SafeFile>;
  /** Reads several; refusals throw, or with `skipRefused` are returned beside the files. */
  readMany(paths: readonly string[], options?: { signal?: AbortSignal; skipRefused?: boolean }): Promise<SafeReadMany>;
  /** Bytes read so far, against the budget. */
  readonly bytesRead: number;
}

export const DEFAULT_READ_BUDGET_BYTES = 8_000_000;

/**
 * The one way loci reads a file a caller names (includes, `@path`, `/all`, small projects):
 * the path must stay inside the root after symlinks, pass the same ignore, store and secret
 * rules as indexing, be a regular file (opened non-blocking, so a FIFO never stalls), fit the
 * per-file cap and the reader's budget. Reads are asynchronous. Errors name paths relative to
 * the root only.
 */
export function createSafeReader(options: SafeReaderOptions): SafeReader {
  const root = resolve(options.root);
  const budget = options.budgetBytes ?? DEFAULT_READ_BUDGET_BYTES;
  let rootReal: Promise<string> | undefined;
  let used = 0;
  const rules = {
    root,
    maxFileBytes: options.maxFileBytes,
    ...(options.exclude ? { exclude: options.exclude } : {}),
    ...(options.respectGitignore !== undefined ? { respectGitignore: options.respectGitignore } : {}),
    ...(options.excludeAbsolutePaths ? { excludeAbsolutePaths: options.excludeAbsolutePaths } : {}),
    ...(options.indexSecrets ? { indexSecrets: true } : {}),
  };

  const readAllowed = async (path: string, signal: AbortSignal | undefined): Promise<SafeFile> => {
    throwIfAborted(signal);
    const realRoot = await (rootReal ??= realpath(root));
    let handle: FileHandle;
    try {
      // The real path, checked by classifyPaths; O_NOFOLLOW refuses it if it became a link since.
      // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; the type is checked next.
      const real = await realpath(join(root, ...path.split('/')));
      handle = await openNoFollow(real);
    } catch (error) {
      throw openError(path, error);
    }
    try {
      // What was opened, not what was checked: a path swapped for a link in between is caught here.
      const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
      if (opened !== undefined) {
        const skip = realTargetSkip(opened, false, {
          root,
          rootReal: realRoot,
          ...(options.excludeAbsolutePaths ? { excludeAbsolutePaths: options.excludeAbsolutePaths } : {}),
          ...(options.indexSecrets ? { indexSecrets: true } : {}),
        });
        if (skip) throw refusal(path, skip);
      }
      const read = await readRegularFile(handle, options.maxFileBytes, {
        ...(signal ? { signal } : {}),
        beforeRead: (size) => {
          if (used + size > budget) throw overBudget(path, budget);
        },
      });
      if (!read.ok) {
        if (read.reason === 'special-file') throw refusal(path, 'special-file');
        throw refusal(
          path,
          'too-large',
          read.reason === 'too-large' ? `${read.size} bytes is over the ${options.maxFileBytes}-byte limit` : `it grew past the ${options.maxFileBytes}-byte limit while being read`,
        );
      }
      const length = read.bytes.length;
      used += length;
      if (used > budget) throw overBudget(path, budget);
      const decoded = decodeSourceText(read.bytes);
      if (!decoded) throw refusal(path, 'binary');
      const secret = options.indexSecrets ? undefined : findSecret(decoded.text);
      if (secret) throw refusal(path, 'secret-content', `it holds what looks like a ${secret}`);
      return { path, text: decoded.text, bytes: length };
    } finally {
      await handle.close();
    }
  };

  const readMany = async (requested: readonly string[], readOptions: { signal?: AbortSignal; skipRefused?: boolean } = {}): Promise<SafeReadMany> => {
    const result: SafeReadMany = { files: [], refused: [] };
    const refuse = (path: string, error: unknown) => {
      if (!readOptions.skipRefused || !(error instanceof LociError) || error.code === 'CONTEXT_TOO_LARGE') throw error;
      result.refused.push({ path, error });
    };
    const paths: string[] = [];
    for (const path of requested) {
      try {
        paths.push(rootRelativePath(root, path));
      } catch (error) {
        refuse(path, error);
      }
    }
    // One classification for all: ignore files along the paths are read once.
    const classified = await classifyPaths(rules, paths);
    const gone = new Map(classified.gone.map((entry) => [entry.path, entry.reason]));
    for (const path of paths) {
      const reason = gone.get(path);
      try {
        if (reason === 'missing') throw new LociError('FILE_NOT_FOUND', `Include "${path}" does not exist in the project folder.`);
        if (reason === 'excluded-directory' && (await isDirectory(join(root, ...path.split('/'))))) throw refusal(path, 'special-file', 'it is a folder');
        if (reason === 'too-large') throw refusal(path, reason, `it is over the ${options.maxFileBytes}-byte limit (sources.maxFileBytes)`);
        if (reason) throw refusal(path, reason);
        result.files.push(await readAllowed(path, readOptions.signal));
      } catch (error) {
        refuse(path, error);
      }
    }
    return result;
  };

  return {
    async read(path, readOptions = {}) {
      const { files } = await readMany([path], readOptions.signal ? { signal: readOptions.signal } : {});
      return files[0] as SafeFile;
    },
    readMany,
    get bytesRead() {
      return used;
    },
  };
}

/**
 * A caller's path as a POSIX path relative to the root, judged by its text alone (links are
 * judged when read). Absolute paths are accepted only inside the root.
 */
export function rootRelativePath(root: string, requested: string): string {
  if (requested.includes('\0')) throw new LociError('INVALID_ARGUMENT', 'An include path holds a NUL character.');
  const absolute = isAbsolute(requested) ? resolve(requested) : resolve(root, requested);
  const path = realRelativePath(resolve(root), absolute);
  if (path === undefined) {
    throw new LociError('PATH_OUTSIDE_ROOT', `Include ${shown(requested)} is outside the project folder.`);
  }
  if (path === '') throw new LociError('NOT_A_REGULAR_FILE', 'The project folder itself cannot be included; name a file in it.');
  return posix.normalize(path);
}

/** The caller's own text, bounded and printable; an absolute path is not echoed. */
function shown(requested: string): string {
  if (isAbsolute(requested)) return '(an absolute path)';
  const clean = requested.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return JSON.stringify(clean.length > 200 ? `${clean.slice(0, 200)}…` : clean);
}

function refusal(path: string, reason: SkipReason, why?: string): LociError {
  const quoted = JSON.stringify(path);
  switch (reason) {
    case 'symlink-outside-root':
      return new LociError('PATH_OUTSIDE_ROOT', `Include ${quoted} leads outside the project folder (through a symbolic link).`);
    case 'special-file':
      return new LociError('NOT_A_REGULAR_FILE', `Include ${quoted} is not a regular file${why ? ` (${why})` : ' (a FIFO, socket or device)'}.`);
    case 'too-large':
      return new LociError('FILE_TOO_LARGE', `Include ${quoted} is too large${why ? `: ${why}` : ''}.`);
    case 'unreadable':
      return new LociError('FILE_NOT_FOUND', `Include ${quoted} cannot be read.`);
    case 'secret':
      return new LociError('PATH_EXCLUDED', `Include ${quoted} is a secrets file by loci's secret rules; it is not sent.`, { details: { reason } });
    case 'secret-content':
      return new LociError('PATH_EXCLUDED', `Include ${quoted} is not sent: ${why ?? 'it holds a credential'}.`, { details: { reason } });
    case 'binary':
      return new LociError('PATH_EXCLUDED', `Include ${quoted} is binary, not text.`, { details: { reason } });
    case 'excluded-directory':
      return new LociError('PATH_EXCLUDED', `Include ${quoted} is in a folder loci never reads (.git, the store, node_modules, build output).`, { details: { reason } });
    default:
      return new LociError('PATH_EXCLUDED', `Include ${quoted} is excluded by the ignore rules (.gitignore, .lociignore, sources.exclude).`, { details: { reason } });
  }
}

function overBudget(path: string, budget: number): LociError {
  return new LociError('CONTEXT_TOO_LARGE', `Reading ${JSON.stringify(path)} would pass the ${budget}-byte read budget of this request.`, { details: { budget } });
}

function openError(path: string, error: unknown): LociError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return refusal(path, 'symlink-outside-root');
  if (code === 'ENXIO' || code === 'EISDIR') return refusal(path, 'special-file');
  if (code === 'ENOENT') return new LociError('FILE_NOT_FOUND', `Include ${JSON.stringify(path)} does not exist in the project folder.`);
  return new LociError('FILE_NOT_FOUND', `Include ${JSON.stringify(path)} cannot be read (${code ?? 'error'}).`);
}

async function isDirectory(absolute: string): Promise<boolean> {
  return stat(absolute).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
