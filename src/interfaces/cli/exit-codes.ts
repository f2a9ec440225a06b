import type { ErrorCategory } from '../../errors/index.js';

/** Documented in the README; scripts rely on them. */
export const exitCodes = {
  ok: 0,
  internal: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  provider: 5,
  unsupported: 6,
  interrupted: 130,
} as const;

export function exitCodeFor(category: ErrorCategory): number {
  switch (category) {
    case 'usage':
      return exitCodes.usage;
    case 'not-found':
      return exitCodes.notFound;
    case 'conflict':
      return exitCodes.conflict;
    case 'provider':
      return exitCodes.provider;
    case 'unsupported':
      return exitCodes.unsupported;
    case 'aborted':
      return exitCodes.interrupted;
    case 'internal':
      return exitCodes.internal;
  }
}
