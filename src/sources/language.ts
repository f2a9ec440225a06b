import { posix } from 'node:path';

/**
 * Language ids loci uses everywhere (chunk rows, `--lang`, filters). Code languages with a
 * tree-sitter grammar get syntax chunking; `markdown` gets section chunking; the rest are
 * cut into line windows.
 */
const byExtension: Record<string, string> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.cs': 'csharp',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.rb': 'ruby',
  '.php': 'php',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'bash',
  '.css': 'css',
  '.scss': 'scss',
  '.less': 'less',
  '.html': 'html',
  '.htm': 'html',
  '.vue': 'vue',
  '.svelte': 'svelte',
  '.md': 'markdown',
  '.mdx': 'markdown',
  '.markdown': 'markdown',
  '.rst': 'restructuredtext',
  '.txt': 'text',
  '.json': 'json',
  '.jsonc': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.ini': 'ini',
  '.xml': 'xml',
  '.sql': 'sql',
  '.kt': 'kotlin',
  '.kts': 'kotlin',
  '.swift': 'swift',
  '.scala': 'scala',
  '.lua': 'lua',
  '.r': 'r',
  '.dart': 'dart',
  '.ex': 'elixir',
  '.exs': 'elixir',
  '.erl': 'erlang',
  '.hs': 'haskell',
  '.ml': 'ocaml',
  '.clj': 'clojure',
  '.ps1': 'powershell',
  '.proto': 'protobuf',
  '.graphql': 'graphql',
  '.gql': 'graphql',
  '.tf': 'hcl',
};

const byFileName: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'make',
  'cmakelists.txt': 'cmake',
  readme: 'text',
  license: 'text',
};

export function detectLanguage(path: string): string {
  const base = posix.basename(path).toLowerCase();
  const named = byFileName[base];
  if (named) return named;
  const extension = posix.extname(base);
  return byExtension[extension] ?? 'text';
}

/** Every language id detectLanguage can return, for validating `--lang`. */
export function knownLanguages(): string[] {
  return [...new Set([...Object.values(byExtension), ...Object.values(byFileName)])].sort();
}

/**
 * The language of a document that has no file name (an API caller's snippet, a dataset
 * record), judged from its first non-blank line; `text` unless that line is unmistakably
 * the start of a definition in one language. Code documents then get the code chunker:
 * symbol names, definitions vs uses.
 */
export function sniffLanguage(text: string): string {
  const first = /^[ \t]*(\S[^\n]*)/m.exec(text.slice(0, 2_000))?.[1] ?? '';
  if (/^(async\s+)?def\s+[A-Za-z_]\w*\s*\(/.test(first) || /^class\s+[A-Za-z_]\w*\s*[(:]/.test(first) || /^@[A-Za-z_][\w.]*(\(.*\))?\s*$/.test(first)) return 'python';
  if (/^func\s+(\([^)]*\)\s*)?[A-Za-z_]\w*\s*[[(]/.test(first) || /^package\s+[a-z]\w*\s*$/.test(first)) return 'go';
  if (/^(pub(\([^)]*\))?\s+)?(async\s+)?fn\s+[A-Za-z_]\w*\s*[<(]/.test(first) || /^(pub\s+)?(struct|enum|trait|impl)\b.*\{\s*$/.test(first)) return 'rust';
  if (/^(export\s+)?(default\s+)?(async\s+)?function\*?\s*[A-Za-z_$][\w$]*\s*[<(]/.test(first)) return 'javascript';
  if (/^(export\s+)?(interface|type)\s+[A-Za-z_$][\w$]*\s*[<={]/.test(first)) return 'typescript';
  if (/^(public|private|protected)\s+(static\s+)?(final\s+)?[\w<>[\],\s]+\s+[A-Za-z_]\w*\s*\(/.test(first)) return 'java';
  return 'text';
}
