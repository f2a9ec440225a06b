// `npm run check:package`: pack the package as npm would publish it, then check the tarball
// with publint (package.json fields, files) and are-the-types-wrong (every subpath's types
// resolve for ESM consumers), and import every subpath from an installed copy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const here = new URL('..', import.meta.url);
const run = (command, args, options = {}) => execFileSync(command, args, { cwd: here, stdio: 'inherit', ...options });
const scratch = mkdtempSync(join(tmpdir(), 'loci-pack-'));
try {
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: here, encoding: 'utf8' }).trim().split('\n').at(-1);
  const tarball = join(scratch, name);
  run('npx', ['--no-install', 'publint', '--strict', tarball]);
  // CommonJS consumers are not supported (ESM only, as documented): profile esm-only.
  run('npx', ['--no-install', 'attw', tarball, '--profile', 'esm-only']);
  // Each subpath loads from the packed files, with loci's own dependencies resolved from here.
  const unpacked = join(scratch, 'package');
  run('tar', ['xzf', tarball, '-C', scratch]);
  run('ln', ['-s', join(new URL('.', here).pathname, 'node_modules'), join(unpacked, 'node_modules')]);
  run(process.execPath, [new URL('./check-package-probe.mjs', import.meta.url).pathname, unpacked]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
