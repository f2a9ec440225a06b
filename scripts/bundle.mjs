// The last step of `npm run build`: each public entry (package.json `exports` and `bin`) is
// rebuilt from tsc's output as one module plus shared chunks (dist/chunks/), in place, so a
// new process loads a few files instead of ~270 (importing loci took ~175 ms, ~60 ms bundled:
// docs/benchmarks.md). Every other file tsc emitted stays as it was: the worker threads and
// the type declarations use it. Packages with native code, WebAssembly or files of their own
// stay external and load from node_modules as before.
// Usage: node scripts/bundle.mjs   (after tsc -p tsconfig.build.json)
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build } from 'rolldown';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const MARK = '/* loci: bundled entry */';

/** Pure JavaScript dependencies worth inlining (zod alone is ~95 modules). */
const INLINED = new Set(['zod', 'commander', 'picomatch', 'ignore', 'stemmer']);
const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
const packageOf = (id) => (id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]);
const external = (id) => {
  if (builtins.has(id) || id.startsWith('node:')) return true;
  if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
  return !INLINED.has(packageOf(id));
};

// Entry name (its path under dist/ without .js) → tsc's file.
const entries = {};
const add = (file) => {
  const relative = file.replace(/^\.\/dist\//, '').replace(/\.js$/, '');
  entries[relative] = join(dist, `${relative}.js`);
};
for (const target of Object.values(manifest.exports)) if (typeof target === 'object' && target.import) add(target.import);
for (const file of Object.values(manifest.bin)) add(file.startsWith('./') ? file : `./${file}`);

const refuse = (message) => {
  process.stderr.write(`bundle: ${message}; run tsc -p tsconfig.build.json first (npm run build does both).\n`);
  process.exit(1);
};
for (const [name, file] of Object.entries(entries)) {
  if (!existsSync(file)) refuse(`${file} is missing`);
  if (readFileSync(file, 'utf8').includes(MARK)) refuse(`dist/${name}.js is already bundled`);
}
rmSync(join(dist, 'chunks'), { recursive: true, force: true });

await build({
  input: entries,
  platform: 'node',
  external,
  logLevel: 'warn',
  output: {
    dir: dist,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    sourcemap: true,
    banner: MARK,
  },
});
