import { readFileSync } from 'node:fs';
import { packageFile } from './package-files.js';

const manifest = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string };

/** The running loci version, recorded in every store it creates. */
export const LOCI_VERSION: string = manifest.version;
