import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Files of the loci package itself (models/, the compiled workers, the console), found from
 * the package's root wherever the build put this code: `src/` under the unit tests, `dist/`
 * as tsc emits it, or a shared chunk of the bundled entries (`dist/chunks/`). A path relative
 * to `import.meta.url` would break as soon as the bundler moves the code that holds it.
 */
const here = fileURLToPath(import.meta.url);

function findPackageRoot(start: string): string {
  for (let dir = start; ; ) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`loci: no package.json above ${start}; the package is incomplete (reinstall it).`);
    dir = parent;
  }
}

/** The folder holding loci's package.json, models/ and dist/. */
export const PACKAGE_ROOT = findPackageRoot(dirname(here));

/** A file shipped in the package (`models/ranker-v1.json`, `package.json`). */
export function packageFile(relative: string): string {
  return join(PACKAGE_ROOT, relative);
}

/**
 * A module of loci's own compiled tree, by its path under `src/` with a `.js` ending
 * (`indexing/graph-worker.js`): `dist/…` when running compiled code, and `src/…` under the
 * TypeScript sources, where it does not exist (callers then run the work in-process).
 */
export function compiledModule(relative: string): URL {
  return pathToFileURL(join(PACKAGE_ROOT, here.endsWith('.ts') ? 'src' : 'dist', relative));
}
