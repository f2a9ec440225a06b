import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LociError } from '../../errors/index.js';

/**
 * The database file a store opened, by device and inode. SQLite keeps writing into a file that
 * was deleted (`rm -rf .loci` under a running server): every write after it would be lost when
 * the process ends. One stat a call (~1.8 µs) finds it first.
 */
export class FileIdentity {
  private readonly opened: { dev: number; ino: number } | undefined;
  /** Resolved now: a later process.chdir() must not make another file look like this one. */
  private readonly path: string;

  constructor(location: string) {
    this.path = resolve(location);
    const stats = statSync(this.path, { throwIfNoEntry: false });
    this.opened = stats ? { dev: stats.dev, ino: stats.ino } : undefined;
  }

  /** Throws STORE_GONE once the path no longer leads to the file opened. */
  check(shown: string): void {
    if (!this.opened) return;
    const now = statSync(this.path, { throwIfNoEntry: false });
    if (now && now.dev === this.opened.dev && now.ino === this.opened.ino) return;
    throw new LociError('STORE_GONE', `The store file ${shown} was ${now ? 'replaced' : 'deleted'} while this process had it open; nothing was read or written.`);
  }
}
