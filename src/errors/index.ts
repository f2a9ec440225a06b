export { LociError, isLociError, throwIfAborted, type LociErrorOptions } from './loci-error.js';
export { errorCodes, type ErrorCode, type ErrorCategory } from './codes.js';
