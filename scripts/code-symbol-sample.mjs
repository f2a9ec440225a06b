#!/usr/bin/env node
// Samples exported/public symbols from a checkout for the exact-symbol half of a
// developer-question set (eval/code-questions/*.json). A symbol is kept only when exactly one
// implementation file defines it (tests, examples, docs, benches and fixtures are left out),
// so its gold is unambiguous. Methods are named with their owner as a developer would type
// them (`Session.send`, `Router::route`, `Mux.HandleFunc`, `res.sendFile`). The sample is a
// stable hash order, not a choice by hand.
//
//   node scripts/code-symbol-sample.mjs --dir /work/corpora/hono --lang typescript [--n 20] [--under src]
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const dir = argument('dir', '');
const language = argument('lang', '');
const count = Number(argument('n', '20'));
const under = argument('under', '');
if (!dir || !language) {
  process.stderr.write('usage: node scripts/code-symbol-sample.mjs --dir CHECKOUT --lang typescript|javascript|python|go|rust [--n 20] [--under SUBDIR]\n');
  process.exit(2);
}

// Definition patterns per language: group 1 is the owner (a class, impl or receiver type) when
// the pattern has two groups, the last group is the symbol name.
const patterns = {
  typescript: [
    /^export\s+(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/,
    /^export\s+(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/,
    /^export\s+const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\(|function|<|[A-Za-z_$][\w$]*\s*=>)/,
  ],
  javascript: [
    /^(?:export\s+)?(?:async\s+)?function\s+([A-Za-z_$][\w$]*)/,
    /^(?:exports|module\.exports)\.([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?function/,
    /^(res|req|app)\.([A-Za-z_$][\w$]*)\s*=\s*function/,
  ],
  python: [/^(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(/, /^class\s+([A-Za-z]\w*)\s*[(:]/, /^ {4}(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(/],
  go: [/^func\s+([A-Z]\w*)\s*[([]/, /^func\s+\(\w*\s*\*?([A-Za-z]\w*)(?:\[[^\]]*\])?\)\s+([A-Z]\w*)\s*\(/, /^type\s+([A-Z]\w*)\s+(?:struct|interface|func)\b/],
  rust: [/^\s*pub\s+(?:async\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+([a-z_]\w*)/, /^\s*pub\s+(?:struct|enum|trait)\s+([A-Z]\w*)/],
};
const separator = { rust: '::' };
// The enclosing owner for languages whose methods are not marked on their own line.
function ownerTracker(language) {
  let owner;
  return (text) => {
    if (language === 'python') {
      const opened = /^class\s+([A-Za-z_]\w*)/.exec(text);
      if (opened) owner = opened[1];
      else if (/^\S/.test(text)) owner = undefined;
      return /^ {4}\S/.test(text) ? owner : undefined;
    }
    if (language === 'rust') {
      const opened = /^impl(?:<.*?>)?\s+(?:[\w:<>, ]+\s+for\s+)?(?:[\w]+::)*([A-Z]\w*)/.exec(text);
      if (opened) owner = opened[1];
      else if (/^}/.test(text)) owner = undefined;
      return /^\s+pub/.test(text) ? owner : undefined;
    }
    return undefined;
  };
}
const extensions = { typescript: ['.ts', '.tsx'], javascript: ['.js', '.mjs', '.cjs'], python: ['.py'], go: ['.go'], rust: ['.rs'] };
// Not implementation: tests, examples, docs, benches, fixtures; Rust macro bodies define no one symbol.
const notImplementation =
  /(^|\/)(tests?|__tests__|spec|_?examples?|docs?|test_helpers|benches|benchmarks?|fixtures?|testdata|runtime-tests|perf-measures|build)(\/|$)|(\.|_)(test|spec)\.[a-z]+$|(^|\/)test_[^/]*\.py$|_test\.go$|\.d\.ts$|(^|\/)macros\.rs$/;

if (!patterns[language]) throw new Error(`unknown --lang ${language}`);
const files = [];
(function walk(folder) {
  for (const name of readdirSync(folder)) {
    if (name.startsWith('.') || name === 'node_modules' || name === 'target') continue;
    const path = join(folder, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (extensions[language].some((extension) => name.endsWith(extension))) files.push(relative(dir, path));
  }
})(join(dir, under));

const definitions = new Map();
for (const path of files.filter((file) => !notImplementation.test(file))) {
  const lines = readFileSync(join(dir, path), 'utf8').split('\n');
  const ownerOf = ownerTracker(language);
  lines.forEach((text, index) => {
    const enclosing = ownerOf(text);
    for (const pattern of patterns[language]) {
      const match = pattern.exec(text);
      if (!match) continue;
      const name = match[match.length - 1];
      if (!name || name.length < 4) break;
      const owner = match.length > 2 ? match[1] : enclosing;
      // A Go method on an unexported type is not public API.
      if (language === 'go' && owner && !/^[A-Z]/.test(owner)) break;
      const symbol = owner ? `${owner}${separator[language] ?? '.'}${name}` : name;
      const list = definitions.get(symbol) ?? [];
      list.push({ path, line: index + 1 });
      definitions.set(symbol, list);
      break;
    }
  });
}
const unique = [...definitions.entries()].filter(([, places]) => new Set(places.map((place) => place.path)).size === 1);
const hash = (name) => createHash('sha256').update(name).digest('hex');
const sample = unique.sort(([a], [b]) => (hash(a) < hash(b) ? -1 : 1)).slice(0, count);
process.stdout.write(
  `${JSON.stringify(
    sample.map(([name, places]) => ({ query: name, gold: [places[0].path], line: places[0].line })),
    null,
    1,
  )}\n`,
);
process.stderr.write(`${files.length} files, ${definitions.size} symbols, ${unique.length} defined in one file; sampled ${sample.length}\n`);
