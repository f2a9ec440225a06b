import { LociError } from '../errors/index.js';
import type { ProviderErrorCodes } from './http-call.js';

export interface ReadStreamOptions {
  label: string;
  codes: ProviderErrorCodes;
  /** The longest silence between two pieces of the body. */
  idleTimeoutMs: number;
  abortSignal?: AbortSignal;
}

/**
 * The pieces of a streamed reply body as they arrive. A silence longer than the idle
 * timeout, a dropped connection or the caller's abort ends it with a LociError; the body is
 * released whichever way the loop ends.
 */
export async function* readWithIdleTimeout(response: Response, options: ReadStreamOptions): AsyncGenerator<Uint8Array> {
  if (!response.body) throw new LociError(options.codes.failed, `${options.label} sent an empty stream.`);
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await readOnce(reader, options);
      if (done) return;
      if (value) yield value;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

async function readOnce(reader: ReadableStreamDefaultReader<Uint8Array>, options: ReadStreamOptions): Promise<{ done: boolean; value?: Uint8Array | undefined }> {
  const { abortSignal: signal } = options;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      reader.read().catch((error: unknown) => {
        if (signal?.aborted) throw new LociError('ABORTED', 'The operation was cancelled.', { cause: error });
        throw new LociError(options.codes.failed, `${options.label} broke off mid-reply (${(error as Error).message}).`, { cause: error });
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new LociError(options.codes.failed, `${options.label} stopped sending for ${options.idleTimeoutMs} ms mid-reply.`)), options.idleTimeoutMs);
        if (signal) {
          onAbort = () => reject(new LociError('ABORTED', 'The operation was cancelled.', { cause: signal.reason }));
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
  }
}
