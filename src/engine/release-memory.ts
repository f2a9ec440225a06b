import { createRequire } from 'node:module';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const require = createRequire(import.meta.url);

/** Chunks a run must write before the memory it freed is worth handing back. */
export const RELEASE_AFTER_CHUNKS = 10_000;
/** How long to wait for the garbage collection that frees a run's buffers. */
const WAIT_FOR_COLLECTION_MS = 5 * 60_000;

type Trim = () => boolean;
let trim: Trim | null | undefined;

/**
 * glibc's `malloc_trim(0)`, called through koffi (an optional dependency), or null where
 * either is missing (macOS, Windows, musl: their allocators hand memory back themselves).
 */
export function loadTrim(): Trim | null {
  if (trim !== undefined) return trim;
  trim = null;
  if (process.platform !== 'linux') return trim;
  try {
    const koffi = require('koffi') as { load(path: string): { func(signature: string): (pad: number) => number } };
    const mallocTrim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
    trim = () => mallocTrim(0) === 1;
  } catch {
    // No koffi, or a libc without malloc_trim: nothing to hand back by hand.
  }
  return trim;
}

let waiting: PerformanceObserver | undefined;

/**
 * Hands the memory a big run freed back to the system, now and after the next full garbage
 * collection (which frees the run's buffers). glibc keeps freed blocks for reuse and returns
 * only the top of its heap: after a 100k-chunk build a long-lived process kept ~470 MB of
 * freed memory, and after 1M ~1.1 GB, until `malloc_trim` (docs/benchmarks.md). Costs well
 * under a millisecond; does nothing where trimming is not available.
 */
export function releaseFreedMemory(): void {
  const release = loadTrim();
  if (!release) return;
  release();
  if (waiting) return;
  const observer = new PerformanceObserver((list) => {
    if (!list.getEntries().some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) return;
    stop();
    release();
  });
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
    if (waiting === observer) waiting = undefined;
  };
  const timer = setTimeout(stop, WAIT_FOR_COLLECTION_MS);
  timer.unref();
  waiting = observer;
  observer.observe({ entryTypes: ['gc'] });
}
