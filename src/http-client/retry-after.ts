/** A header source: a fetch `Headers` or anything with the same `get`. */
export interface HeaderSource {
  get(name: string): string | null;
}

const DELTA_SECONDS = /^\d+(\.\d+)?$/;

/**
 * How long a server asks the client to wait before retrying, in ms: RFC 9110 `Retry-After`
 * as delta-seconds (`120`) or as an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`), or
 * OpenAI's `retry-after-ms`, which is more precise and wins when present. Undefined when
 * absent or unreadable; a date in the past is 0. Capping is the retry policy's job.
 */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | undefined {
  const precise = headers.get('retry-after-ms')?.trim();
  if (precise && DELTA_SECONDS.test(precise)) return Number(precise);
  return parseRetryAfter(headers.get('retry-after'), now);
}

/** One `Retry-After` value (seconds or HTTP date) in ms from `now`. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  // Checked before Date.parse, which would read "120" as the year 120.
  if (DELTA_SECONDS.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // "-5", "1e3": neither form
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}
