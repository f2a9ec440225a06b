import { LociError } from '../../errors/index.js';
import type { CliIo } from './cli-context.js';

/** How long a cancelled task may take to stop before the process ends anyway. */
export const STOP_DEADLINE_MS = 5_000;

export interface InterruptOptions {
  /** After the first Ctrl-C or SIGTERM, how long to wait for the task before ending the process. */
  stopDeadlineMs?: number;
}

/**
 * Runs a cancellable task: the first Ctrl-C or SIGTERM asks it to stop after the file in
 * flight (the index stays consistent and the next run resumes); a second one, or a task
 * still running after the deadline, ends the process at once.
 *
 * Ending it means re-raising the signal with its default action, not process.exit():
 * exit waits for libuv's thread pool, so one blocked read (a FIFO, a hung network
 * mount) would keep the process alive forever. SQLite's journal keeps the store
 * consistent either way.
 */
export async function withInterrupt<T>(io: CliIo, task: (signal: AbortSignal) => Promise<T>, options: InterruptOptions = {}): Promise<T> {
  return (await interruptible(io, task, options)).value;
}

/**
 * withInterrupt, then `report` prints what the task did. A task that returns although a stop
 * was asked for (the request came as it finished its last file) still has its output
 * printed, and the command then fails with ABORTED (exit 130) all the same: a signal ends a
 * script's `loci index && next`.
 */
export async function withInterruptReport<T>(io: CliIo, task: (signal: AbortSignal) => Promise<T>, report: (value: T) => void, options: InterruptOptions = {}): Promise<void> {
  const { value, stopRequested } = await interruptible(io, task, options);
  report(value);
  if (stopRequested) throw new LociError('ABORTED', 'Stopped on request as the work finished: what it printed is complete.', { hint: 'Nothing is left to resume.' });
}

async function interruptible<T>(io: CliIo, task: (signal: AbortSignal) => Promise<T>, options: InterruptOptions): Promise<{ value: T; stopRequested: boolean }> {
  const controller = new AbortController();
  const deadlineMs = options.stopDeadlineMs ?? STOP_DEADLINE_MS;
  let deadline: NodeJS.Timeout | undefined;
  const detach = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const endNow = (signal: NodeJS.Signals) => {
    detach();
    process.kill(process.pid, signal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      endNow(signal);
      return;
    }
    io.stderr.write(`\nStopping after the current file… (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once)\n`);
    controller.abort(new Error('interrupted'));
    deadline = setTimeout(() => {
      io.stderr.write(`Still busy ${deadlineMs / 1000} s after the request to stop; quitting now (the next run resumes).\n`);
      endNow(signal);
    }, deadlineMs);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return { value: await task(controller.signal), stopRequested: controller.signal.aborted };
  } finally {
    if (deadline) clearTimeout(deadline);
    detach();
  }
}
