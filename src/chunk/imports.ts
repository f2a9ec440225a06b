import { posix } from 'node:path';

/**
 * The modules a source file imports, as repository paths without resolution (`src/utils/url`,
 * `pkg/models`), so search can tell that a file imports one of the strongest hits (or is
 * imported by it). Only imports that can name a file of the same repository are kept:
 * relative specifiers in JavaScript/TypeScript (`./x`, `../y/z.js`), relative and dotted
 * absolute modules in Python. Package imports (`react`, `node:fs`) are not files here.
 */
export const IMPORTS_VERSION = 1;

const MAX_IMPORTS = 200;
const SCRIPT_LANGUAGES = new Set(['typescript', 'tsx', 'javascript', 'svelte', 'vue']);
// import … from '…', export … from '…', import '…', import('…'), require('…')
const SCRIPT_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"\n]+)['"]/g;
const PYTHON_FROM = /^[ \t]*from\s+(\.*)([\w.]*)\s+import\s+([\w, \t()*]+)/gm;
const PYTHON_IMPORT = /^[ \t]*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)/gm;

export function extractImports(text: string, language: string, path: string): string[] {
  const found = new Set<string>();
  const directory = posix.dirname(path);
  const add = (target: string) => {
    const normalized = posix.normalize(target);
    if (!normalized.startsWith('..') && normalized !== '.' && found.size < MAX_IMPORTS) found.add(normalized);
  };
  if (SCRIPT_LANGUAGES.has(language)) {
    for (const match of text.matchAll(SCRIPT_IMPORT)) add(posix.join(directory, match[1] as string));
  } else if (language === 'python') {
    for (const match of text.matchAll(PYTHON_FROM)) {
      const dots = (match[1] as string).length;
      const module = (match[2] as string).split('.').filter(Boolean).join('/');
      if (dots === 0) {
        if (module) add(module);
        continue;
      }
      // `from . import a, b` names modules a and b; `from ..pkg import x` names pkg (or pkg/x).
      const base = posix.join(directory, ...new Array<string>(dots - 1).fill('..'));
      if (module) add(posix.join(base, module));
      else for (const name of (match[3] as string).replace(/[()]/g, '').split(',')) if (/^\w+$/.test(name.trim())) add(posix.join(base, name.trim()));
    }
    for (const match of text.matchAll(PYTHON_IMPORT)) {
      for (const part of (match[1] as string).split(',')) add((part.trim().split(/\s+/)[0] as string).split('.').join('/'));
    }
  }
  return [...found];
}

const MODULE_SUFFIX = /\.(?:d\.ts|ts|tsx|mts|cts|js|jsx|mjs|cjs|py|pyi|svelte|vue)$/;

/** A path or import as a module key: no extension, no trailing index/__init__. */
export function moduleKey(path: string): string {
  return path.replace(MODULE_SUFFIX, '').replace(/\/(?:index|__init__)$/, '');
}
