/** A file found under an indexed root. `path` is POSIX-style and relative to the root. */
export interface SourceFile {
  path: string;
  absolutePath: string;
  size: number;
  mtimeMs: number;
  language: string;
}

/** Why a path was not indexed. Every skip is counted under exactly one reason. */
export type SkipReason =
  | 'ignored' // matched .gitignore / .lociignore / configured exclude patterns
  | 'excluded-directory' // always excluded: .git, node_modules, build output, loci's own store
  | 'binary' // by extension, or by content (NUL bytes / not text)
  | 'too-large' // bigger than sources.maxFileBytes
  | 'unreadable' // EACCES, EPERM, vanished during the walk, …
  | 'symlink-outside-root' // a symlink whose target lies outside the root
  | 'symlink-loop' // a symlinked directory already visited on this path
  | 'special-file' // sockets, FIFOs, devices
  | 'chunk-error' // reading, chunking or preparing the file failed; the run went on without it
  | 'too-deep' // a folder nested deeper than the walk descends (bounds the cost of ignore matching)
  | 'secret' // a conventional credentials file: .env, id_rsa, *.pem, .npmrc, … (src/sources/secret-rules.ts)
  | 'secret-content'; // the text holds a private key or a high-confidence token format

export const skipReasons: readonly SkipReason[] = [
  'ignored',
  'excluded-directory',
  'binary',
  'too-large',
  'unreadable',
  'symlink-outside-root',
  'symlink-loop',
  'special-file',
  'chunk-error',
  'too-deep',
  'secret',
  'secret-content',
];

export type SkipCounts = Record<SkipReason, number>;

export function emptySkipCounts(): SkipCounts {
  return Object.fromEntries(skipReasons.map((reason) => [reason, 0])) as SkipCounts;
}

export interface WalkOptions {
  /** Absolute path of the folder to walk. */
  root: string;
  maxFileBytes: number;
  /** Extra patterns in .gitignore syntax, relative to the root. */
  exclude?: readonly string[];
  /** Read `.gitignore` files; `.lociignore` files are always read. */
  respectGitignore?: boolean;
  /** Absolute paths that are never walked (e.g. the store folder when it lies inside the root). */
  excludeAbsolutePaths?: readonly string[];
  signal?: AbortSignal;
  /** Index conventional secrets files too (trusted opt-in only; default false: skipped as `secret`). */
  indexSecrets?: boolean;
}

export interface WalkResult {
  /** Sorted by path, so runs are deterministic. */
  files: SourceFile[];
  skipped: SkipCounts;
  /** Up to a bounded number of examples per reason, for `loci status`. */
  skippedExamples: Partial<Record<SkipReason, string[]>>;
  /** Ignore files or patterns that were not applied, and why (a FIFO, too large, too costly to match). */
  warnings?: string[];
}

/** The text of a file, or why it cannot be indexed. */
export type ReadResult =
  | { ok: true; text: string; bytes: Uint8Array; invalidUtf8: boolean }
  | { ok: false; reason: Extract<SkipReason, 'binary' | 'unreadable' | 'too-large' | 'secret-content'>; message: string };
