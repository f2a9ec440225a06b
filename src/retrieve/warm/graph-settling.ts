import { savedFilesIdentity } from './mapped-graph-file.js';

/**
 * Rows up to which a mapped graph whose changes passed its bounds is dropped for a while
 * (searches scan exactly) instead of being read into memory at once: ~1.5 ms a scan at 35k rows
 * and ~14 ms at 100k here, against reading the whole file on the searching thread (0.4–0.5 s
 * at 35k, held by whichever search's catch-up took the change). Above it, the file is read then.
 */
export const EXACT_WHILE_SETTLING = 131_072;

/**
 * How long after its last row change a dropped graph waits for a file that fits before the old
 * one is read into memory and reconciled. Another process's indexing run saves its graph a
 * moment after its last commit (1–2 s at 35k chunks), and that file is mapped instead.
 */
export const SETTLE_QUIET_MS = 5_000;

/**
 * A mapped graph dropped when its changes passed its bounds (ExactOrGraphVectorIndex): what a
 * graph is made from again, once a saved file fits the rows or the changes have been quiet.
 */
export class Settling {
  /** Rows the dropped file may hold with another vector (beside it, or given a new one since): never kept from that file. */
  readonly moved: Set<number>;
  private lastChange = performance.now();
  /** The identity last tried, and when: a newer file is tried once, then again after rows change. */
  private tried: string | undefined;
  private triedAt = Number.NEGATIVE_INFINITY;

  /** `dropped`: the saved files' identity as the dropped graph was mapped from them (a file saved after that is new, even before the drop). */
  constructor(
    private readonly file: string,
    private readonly dropped: string | undefined,
    beside: Iterable<number>,
    private readonly quietMs = SETTLE_QUIET_MS,
  ) {
    this.moved = new Set(beside);
    this.tried = dropped;
  }

  /** A row changed (`replaced`: a held row was given a new vector). */
  changed(rowId: number, replaced: boolean): void {
    this.lastChange = performance.now();
    if (replaced) this.moved.add(rowId);
  }

  /** Whether a file saved since the drop is worth trying to map now (it is new, or rows changed since it was tried). */
  tryNewFile(): boolean {
    const now = savedFilesIdentity(this.file);
    if (now === undefined || now === this.dropped || (now === this.tried && this.triedAt >= this.lastChange)) return false;
    this.tried = now;
    this.triedAt = performance.now();
    return true;
  }

  /** Whether the saved files are others than the one dropped (written since, by this process or another). */
  get fileChanged(): boolean {
    return savedFilesIdentity(this.file) !== this.dropped;
  }

  /** Whether rows have not changed for the quiet time (SETTLE_QUIET_MS by default). */
  get quiet(): boolean {
    return performance.now() - this.lastChange >= this.quietMs;
  }
}
