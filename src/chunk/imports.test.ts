import { describe, expect, it } from 'vitest';
import { extractImports, moduleKey } from './imports.js';

describe('imports', () => {
  it('keeps relative script imports as repository paths, never packages', () => {
    const text = [
      "import { Hono } from '../hono'",
      "import type { Env } from './types.js'",
      "export * from './utils/url'",
      "import './polyfill'",
      "const lazy = await import('../lazy/index.ts')",
      "const old = require('./legacy')",
      "import react from 'react'",
      "import { readFile } from 'node:fs'",
      "import outside from '../../../elsewhere'",
    ].join('\n');
    expect(extractImports(text, 'typescript', 'src/middleware/cors.ts')).toEqual([
      'src/hono',
      'src/middleware/types.js',
      'src/middleware/utils/url',
      'src/middleware/polyfill',
      'src/lazy/index.ts',
      'src/middleware/legacy',
    ]);
  });

  it('reads Python relative and dotted imports', () => {
    const text = 'from . import models, views\nfrom ..core.db import connect\nfrom pkg.util import helper\nimport pkg.io as pio, os\n';
    expect(extractImports(text, 'python', 'pkg/app/main.py')).toEqual(['pkg/app/models', 'pkg/app/views', 'pkg/core/db', 'pkg/util', 'pkg/io', 'os']);
  });

  it('matches files and imports as module keys', () => {
    expect(moduleKey('src/utils/url.ts')).toBe(moduleKey('src/utils/url.js'));
    expect(moduleKey('src/jsx/index.ts')).toBe(moduleKey('src/jsx'));
    expect(moduleKey('pkg/core/__init__.py')).toBe('pkg/core');
    expect(extractImports('import x from "./x"', 'markdown', 'a.md')).toEqual([]);
  });
});
