import type { CliIo } from './cli-context.js';
import { exitCodes } from './exit-codes.js';

/**
 * Runs a cancellable task: the first Ctrl-C asks it to stop after the file in flight
 * (the index stays consistent and the next run resumes); a second one exits at once.
 */
export async function withInterrupt<T>(io: CliIo, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      io.stderr.write('\nStopping after the current file… (Ctrl-C again to quit at once)\n');
      controller.abort(new Error('interrupted'));
    } else {
      process.exit(exitCodes.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await task(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
