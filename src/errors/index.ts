export { LociError, isLociError, isProviderFailure, throwIfAborted, type LociErrorOptions } from './loci-error.js';
export { errorCodes, type ErrorCode, type ErrorCategory } from './codes.js';
export { fromFileSystemError, isFileSystemError } from './file-system-error.js';
