#!/usr/bin/env node
import * as module from 'node:module';

// Node 22.1+ caches compiled modules on disk between runs (a one-shot command loads ~200 of
// them); older Nodes have no such switch and skip this.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const { runCli } = await import('./run-cli.js');
const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
