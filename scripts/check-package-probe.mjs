// Imports every subpath of an unpacked package (argv[2]): each must load and export something.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const base = process.argv[2];
const pkg = JSON.parse(await readFile(join(base, 'package.json'), 'utf8'));
for (const [subpath, target] of Object.entries(pkg.exports)) {
  if (subpath.endsWith('.json')) continue;
  const module = await import(pathToFileURL(join(base, target.import)).href);
  const names = Object.keys(module);
  if (names.length === 0) throw new Error(`${subpath} exports nothing`);
  console.log(`${subpath}: ${names.length} exports`);
}
