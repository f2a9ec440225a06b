export { walkFolder } from './walk-folder.js';
export { assertRootFolder } from './root-folder.js';
export { readSourceFile, looksBinary } from './read-source.js';
export { detectLanguage, knownLanguages } from './language.js';
export { emptySkipCounts, skipReasons, type ReadResult, type SkipCounts, type SkipReason, type SourceFile, type WalkOptions, type WalkResult } from './spec.js';
