#!/usr/bin/env node
// The web console's first load: every JavaScript file it ships, gzip-compressed, against the
// 150 KB budget (issue #24). Run after `npm run build`; prints the sizes, exits 1 when over.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET = 150 * 1024;
const dir = new URL('../dist/console/assets/', import.meta.url);
let files;
try {
  files = readdirSync(dir);
} catch {
  console.error('dist/console is missing: run npm run build first.');
  process.exit(1);
}
let js = 0;
let css = 0;
for (const name of files) {
  const gz = gzipSync(readFileSync(join(dir.pathname, name)), { level: 9 }).length;
  if (name.endsWith('.js')) js += gz;
  if (name.endsWith('.css')) css += gz;
}
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(`console: JavaScript ${kb(js)} gzip (budget ${kb(BUDGET)}), CSS ${kb(css)} gzip`);
if (js > BUDGET) {
  console.error(`The console's JavaScript is ${kb(js)} compressed, over the ${kb(BUDGET)} budget.`);
  process.exit(1);
}
