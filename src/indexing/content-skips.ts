import type { SkipReason } from '../sources/spec.js';
import type { Store } from '../store/spec.js';

/** The store state key holding the files a run read and refused for their content. */
export const CONTENT_SKIPS_STATE = 'content-skips';
/** Bumped when what read-source.ts or the secret rules refuse changes: older records are then dropped, and the files read again. */
const FORMAT = 1;

/** Refusals that stand as long as the file is unchanged (a read error or a chunker failure may not: those files are tried again). */
export type RememberedReason = Extract<SkipReason, 'binary' | 'secret-content'>;
const REMEMBERED: ReadonlySet<string> = new Set<RememberedReason>(['binary', 'secret-content']);

interface Refusal {
  size: number;
  mtimeMs: number;
  reason: RememberedReason;
  /** When the file was read and refused (ms since the epoch). */
  at: number;
}

/**
 * A file changed this soon before it was read may change again within its mtime's resolution
 * (a second or two on some file systems) and keep its size and mtime: such a refusal is not
 * trusted, and the file is read again (as plan-changes.ts re-reads a file indexed that soon).
 */
const RACY_MS = 2_000;

/**
 * Files a run read and refused for what they hold (binary content without a binary
 * extension, a secret in the text), by path with the size and mtime they had. Such a file is
 * in no catalog, so without this every run read it again and `loci status` counted it as new
 * forever. While its size and mtime stay the same, runs skip it unread and status leaves it
 * out; once either changes, it is read again. Secrets are remembered only while the run
 * withholds them (`indexSecrets` off).
 */
export class ContentSkips {
  private changed = false;

  private constructor(private readonly files: Map<string, Refusal>) {}

  /** What the store keeps (nothing, or something unreadable or of another format, reads as none). */
  static async read(store: Pick<Store, 'readState'>): Promise<ContentSkips> {
    const files = new Map<string, Refusal>();
    try {
      const kept = JSON.parse((await store.readState(CONTENT_SKIPS_STATE)) ?? 'null') as { format?: unknown; files?: unknown } | null;
      if (kept?.format === FORMAT && kept.files && typeof kept.files === 'object') {
        for (const [path, value] of Object.entries(kept.files as Record<string, unknown>)) {
          const [size, mtimeMs, reason, at] = Array.isArray(value) ? value : [];
          if (typeof size === 'number' && typeof mtimeMs === 'number' && typeof reason === 'string' && REMEMBERED.has(reason) && typeof at === 'number') {
            files.set(path, { size, mtimeMs, reason: reason as RememberedReason, at });
          }
        }
      }
    } catch {
      // damaged: every file is read again
    }
    return new ContentSkips(files);
  }

  /** Why `file` was refused, if it was and has not changed since (a secret only while secrets are withheld). */
  refused(file: { path: string; size: number; mtimeMs: number }, indexSecrets: boolean): RememberedReason | undefined {
    const kept = this.trusted(file);
    return !kept || (kept.reason === 'secret-content' && indexSecrets) ? undefined : kept.reason;
  }

  /** A run's outcome for a file it read: refused for one of the remembered reasons, or anything else (indexed, failed, gone). */
  note(file: { path: string; size: number; mtimeMs: number }, reason: SkipReason | undefined): void {
    if (reason !== undefined && REMEMBERED.has(reason)) {
      if (this.trusted(file)?.reason === reason) return;
      this.files.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, reason: reason as RememberedReason, at: Date.now() });
      this.changed = true;
    } else if (this.files.delete(file.path)) this.changed = true;
  }

  /** The record of `file` while it stands: the file unchanged since, and read long enough after its last change. */
  private trusted(file: { path: string; size: number; mtimeMs: number }): Refusal | undefined {
    const kept = this.files.get(file.path);
    return kept && kept.size === file.size && kept.mtimeMs === file.mtimeMs && kept.mtimeMs < kept.at - RACY_MS ? kept : undefined;
  }

  /** Forgets every file `keep` says no to (a whole run: files its walk no longer found). */
  retain(keep: (path: string) => boolean): void {
    for (const path of this.files.keys()) {
      if (keep(path)) continue;
      this.files.delete(path);
      this.changed = true;
    }
  }

  /** Saves the record when it changed. */
  async write(store: Pick<Store, 'writeState'>): Promise<void> {
    if (!this.changed) return;
    // No prototype: a file named __proto__ is a key like any other.
    const files: Record<string, [number, number, RememberedReason, number]> = Object.create(null);
    for (const [path, { size, mtimeMs, reason, at }] of this.files) files[path] = [size, mtimeMs, reason, at];
    await store.writeState(CONTENT_SKIPS_STATE, JSON.stringify({ format: FORMAT, files }));
    this.changed = false;
  }
}
