export { sendJson, openResponse, attemptsExhausted, type HttpCallOptions, type ProviderErrorCodes } from './http-call.js';
export { withRetry, retryDelay, sleep, RetryableError, DEFAULT_RETRY_POLICY, MAX_RETRY_DELAY_MS, type RetryPolicy, type WithRetryOptions } from './retry.js';
export { retryAfterMs, parseRetryAfter, type HeaderSource } from './retry-after.js';
export { readWithIdleTimeout, type ReadStreamOptions } from './read-stream.js';
export { describeBody, redactUrl } from './error-body.js';
