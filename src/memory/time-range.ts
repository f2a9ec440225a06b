import { LociError } from '../errors/index.js';

/**
 * Record times must fall in years 0001–9999 (epoch ms). Outside that a date has no
 * four-digit ISO form, and far outside it (1e300) `toISOString` throws, which once took
 * recall and the CLI memory commands down for everyone reading that memory.
 */
export const MIN_TIME = new Date('0001-01-01T00:00:00.000Z').getTime();
export const MAX_TIME = new Date('9999-12-31T23:59:59.999Z').getTime();

export function isValidTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= MIN_TIME && value <= MAX_TIME;
}

/** Throws INVALID_ARGUMENT naming the field unless the value is an epoch-ms time in years 0001–9999. */
export function checkTime(value: unknown, name: string): number {
  if (!isValidTime(value)) {
    throw new LociError('INVALID_ARGUMENT', `${name} must be a time between 0001-01-01 and 9999-12-31 (epoch ms ${MIN_TIME} to ${MAX_TIME}); got ${String(value)}.`, {
      hint: 'Pass epoch milliseconds (e.g. Date.now()) or, in the CLI, an ISO date such as 2024-05-08.',
      details: { field: name, value: String(value), min: MIN_TIME, max: MAX_TIME },
    });
  }
  return value;
}

/** The nearest valid time (a non-number becomes `fallback`), for rows written before times were checked. */
export function clampTime(value: unknown, fallback: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return fallback;
  return Math.min(MAX_TIME, Math.max(MIN_TIME, value));
}
