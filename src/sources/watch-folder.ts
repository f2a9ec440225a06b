import { relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { alwaysExcludedDirectories, buildOutputDirectories } from './default-rules.js';

export interface WatchFolderOptions {
  root: string;
  /** Folders never watched (the store). */
  excludeAbsolutePaths?: readonly string[];
  /** Quiet time before a batch of changes is handed over (default 50 ms). */
  debounceMs?: number;
  /** Longest a busy tree can delay a batch (default 500 ms). */
  maxWaitMs?: number;
  /**
   * A batch of changed paths (relative, POSIX). `rulesChanged` is set when an ignore file
   * changed, so what is indexable may have changed anywhere.
   */
  onChanges: (paths: string[], info: { rulesChanged: boolean }) => void;
  onError?: (error: Error) => void;
}

export interface FolderWatcher {
  /** Resolves once the initial scan is done and changes are being reported. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const RULE_FILES = new Set(['.gitignore', '.lociignore']);

/**
 * Watches a folder (chokidar: native events, no polling) and reports debounced batches of
 * changed paths. Always-excluded folders (.git, node_modules, the store) and build output
 * folders (dist, build, out, target) are not watched at all, so a big dependency or build tree
 * costs nothing; a build folder an ignore file brings back is indexed by full runs (the
 * watcher's first one, and each after an ignore file changes), not on every save.
 */
export function watchFolder(options: WatchFolderOptions): FolderWatcher {
  const excluded = (options.excludeAbsolutePaths ?? []).map((path) => path.replace(/[\\/]+$/, ''));
  const debounceMs = options.debounceMs ?? 50;
  const maxWaitMs = options.maxWaitMs ?? 500;
  let pending = new Set<string>();
  let rulesChanged = false;
  let timer: NodeJS.Timeout | undefined;
  let firstPendingAt = 0;

  const flush = () => {
    timer = undefined;
    if (pending.size === 0) return;
    const batch = [...pending].sort();
    const info = { rulesChanged };
    pending = new Set();
    rulesChanged = false;
    options.onChanges(batch, info);
  };
  const record = (absolute: string) => {
    const path = relative(options.root, absolute).split(sep).join('/');
    if (path === '' || path.startsWith('..')) return;
    if (RULE_FILES.has(path.slice(path.lastIndexOf('/') + 1)) || path === '.git/info/exclude') rulesChanged = true;
    if (pending.size === 0) firstPendingAt = Date.now();
    pending.add(path);
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, Date.now() - firstPendingAt >= maxWaitMs ? 0 : debounceMs);
  };

  const watcher: FSWatcher = watch(options.root, {
    ignoreInitial: true,
    persistent: true,
    ignored: (path: string) => {
      if (excluded.some((folder) => path === folder || path.startsWith(folder + sep))) return true;
      const name = path.slice(path.lastIndexOf(sep) + 1);
      return path !== options.root && (alwaysExcludedDirectories.has(name) || buildOutputDirectories.has(name));
    },
  });
  watcher.on('all', (_event, path) => record(path));
  watcher.on('error', (error) => options.onError?.(error as Error));
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}
