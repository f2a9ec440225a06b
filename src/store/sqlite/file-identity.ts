import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LociError } from '../../errors/index.js';

/**
 * A read this soon after a check that passed reads without a new one. A ranked search makes ~10
 * store calls: a stat each took ~1.5 % of it at 100k chunks (in-process A/B, docs/benchmarks.md).
 * A read of a file deleted meanwhile still reads the open file, as it was a moment before.
 */
const READ_RECHECK_MS = 100;

/**
 * The database file a store opened, by device and inode. SQLite keeps writing into a file that
 * was deleted (`rm -rf .loci` under a running server): every write after it would be lost when
 * the process ends. A stat before every write finds it first (~2–4 µs); reads on a search's
 * path share one stat per READ_RECHECK_MS.
 */
export class FileIdentity {
  private readonly opened: { dev: number; ino: number } | undefined;
  /** When a check last passed (performance.now()); none since one failed. */
  private passedAt = Number.NEGATIVE_INFINITY;
  /** Resolved now: a later process.chdir() must not make another file look like this one. */
  private readonly path: string;

  /** `clock`: milliseconds, performance.now() unless a test sets it. */
  constructor(
    location: string,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.path = resolve(location);
    const stats = statSync(this.path, { throwIfNoEntry: false });
    this.opened = stats ? { dev: stats.dev, ino: stats.ino } : undefined;
  }

  /** Throws STORE_GONE once the path no longer leads to the file opened (`reading`: unless a check passed within READ_RECHECK_MS). */
  check(shown: string, reading = false): void {
    if (!this.opened) return;
    const at = this.clock();
    if (reading && at - this.passedAt < READ_RECHECK_MS) return;
    const now = statSync(this.path, { throwIfNoEntry: false });
    if (now && now.dev === this.opened.dev && now.ino === this.opened.ino) {
      this.passedAt = at;
      return;
    }
    this.passedAt = Number.NEGATIVE_INFINITY;
    throw new LociError('STORE_GONE', `The store file ${shown} was ${now ? 'replaced' : 'deleted'} while this process had it open; nothing was read or written.`, {
      details: { file: this.path },
    });
  }
}
