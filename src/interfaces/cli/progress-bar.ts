import type { IndexEvent } from '../../indexing/events.js';
import { printable } from './format.js';

type Stream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * A one-line progress bar with an ETA on a TTY. Elsewhere (pipes, CI logs) a plain line every
 * PLAIN_EVERY_MS of a long run, so a 60 s run is not silent; short runs print only their result.
 * Redraws at most ten times a second. The ETA waits for a few seconds of work: the first
 * files (start-up, grammars) say little about the rest.
 */
const PLAIN_EVERY_MS = 15_000;
const ETA_AFTER_MS = 3_000;

export function createProgressBar(stream: Stream, label: string) {
  const tty = stream.isTTY === true;
  let started = -1;
  let lastDraw = 0;
  let drawn = false;
  let lastTotal = 0;

  const draw = (done: number, total: number, detail: string) => {
    const now = performance.now();
    if (started < 0) started = now;
    lastTotal = total;
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    const elapsedMs = now - started;
    const eta = done > 0 && total > done && elapsedMs >= ETA_AFTER_MS ? ` ETA ${formatSeconds((elapsedMs / 1000 / done) * (total - done))}` : '';
    if (!tty) {
      if (now - Math.max(started, lastDraw) < PLAIN_EVERY_MS) return;
      lastDraw = now;
      stream.write(`${label}: ${done}/${total} (${Math.round(fraction * 100)}%), ${formatSeconds(elapsedMs / 1000)} so far${eta}\n`);
      return;
    }
    if (now - lastDraw < 100 && done < total) return;
    lastDraw = now;
    const width = 24;
    const filled = Math.round(fraction * width);
    const head = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${Math.round(fraction * 100)}%${eta} `;
    const room = Math.max(0, (stream.columns ?? 80) - head.length - 1);
    const shown = printable(detail);
    const tail = shown.length > room ? `…${shown.slice(shown.length - room + 1)}` : shown;
    stream.write(`\r\x1b[2K${head}${tail}`);
    drawn = true;
  };

  return {
    onIndexEvent(event: IndexEvent) {
      if (event.type === 'run-waiting') {
        this.finish();
        const since = new Date(event.since).toTimeString().slice(0, 8);
        stream.write(`Waiting for another loci run indexing this store (pid ${event.pid} on ${printable(event.host)}, since ${since}); Ctrl-C to give up.\n`);
        return;
      }
      if (event.type === 'store-upgrade') {
        this.finish();
        stream.write(`Upgrading ${printable(event.store)} from loci's schema version ${event.from} to ${event.to}, once, for this version of loci…\n`);
        return;
      }
      if (event.type === 'file-indexed' || event.type === 'file-unchanged' || event.type === 'file-skipped') draw(event.done, event.total, event.path);
      else if (event.type === 'walk-finished') draw(0, event.files, 'scanning');
      else if (event.type === 'save-started' && lastTotal > 0) draw(lastTotal, lastTotal, 'saving the index files');
    },
    update(done: number, total: number, detail = '') {
      draw(done, total, detail);
    },
    finish() {
      if (tty && drawn) stream.write('\r\x1b[2K');
      drawn = false;
    },
  };
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
}
