import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const manifest = require('../package.json') as { version: string };

/** The running loci version, recorded in every store it creates. */
export const LOCI_VERSION: string = manifest.version;
