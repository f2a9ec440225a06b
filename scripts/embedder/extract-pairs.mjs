// Builds the training pairs for loci's offline static embedder from text available on
// this machine (no network): TypeScript doc comments in installed packages, WordNet
// glosses and synonyms (Debian wordnet-base), and markdown heading → section pairs.
// Python docstring pairs come from extract_python_pairs.py.
//
// Usage: node scripts/embedder/extract-pairs.mjs OUT_DIR NODE_MODULES_DIR...
import { createWriteStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [outDir, ...roots] = process.argv.slice(2);
if (!outDir || roots.length === 0) {
  console.error('usage: extract-pairs.mjs OUT_DIR ROOT...');
  process.exit(2);
}

function* walk(dir, depth = 0) {
  if (depth > 12) return;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path, depth + 1);
    else if (entry.isFile()) yield path;
  }
}

const clean = (text) => text.replace(/\s+/g, ' ').trim();

// /** doc */ followed by a declaration line: the doc's first sentence(s) → the declaration.
function* typescriptPairs(path) {
  const text = readFileSync(path, 'utf8');
  const pattern = /\/\*\*([\s\S]*?)\*\/\s*\n\s*([^\n]{8,300})/g;
  for (const match of text.matchAll(pattern)) {
    const doc = clean(match[1].replace(/^\s*\*\s?/gm, ' ').replace(/@\w+[\s\S]*$/, ''));
    const declaration = match[2].trim();
    if (doc.length < 12 || doc.length > 600 || /^[}\]]/.test(declaration)) continue;
    yield {
      query: doc
        .split(/(?<=\.)\s/)
        .slice(0, 2)
        .join(' '),
      document: declaration,
      source: 'typescript',
    };
  }
}

function* markdownPairs(path) {
  const text = readFileSync(path, 'utf8');
  const sections = text.split(/\n(?=#{1,4} )/);
  for (const section of sections) {
    const heading = /^#{1,4} (.+)/.exec(section);
    if (!heading) continue;
    const body = clean(section.slice(heading[0].length).replace(/```[\s\S]*?```/g, ' '));
    const title = clean(heading[1].replace(/[#`*_[\]()]/g, ' '));
    if (title.length < 4 || body.length < 40) continue;
    yield { query: title, document: body.slice(0, 1500), source: 'markdown' };
  }
}

// WordNet data files: "offset lex type count word1 0 word2 0 ... | gloss".
function* wordnetPairs(folder) {
  for (const part of ['noun', 'verb', 'adj', 'adv']) {
    const file = join(folder, `data.${part}`);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const [head, gloss] = line.split(' | ');
      if (!gloss) continue;
      const fields = head.split(' ');
      const count = parseInt(fields[3], 16);
      const words = [];
      for (let index = 0; index < count; index++) words.push(fields[4 + index * 2].replace(/_/g, ' ').replace(/\(.*\)$/, ''));
      const definition = clean(gloss.split(';')[0].replace(/"/g, ''));
      if (definition.length < 8) continue;
      yield { query: words.join(', '), document: definition, source: 'wordnet' };
      for (let index = 1; index < words.length; index++) yield { query: words[0], document: words[index], source: 'wordnet-synonym' };
    }
  }
}

const outputs = { typescript: 0, markdown: 0, wordnet: 0 };
const out = createWriteStream(join(outDir, 'node-sources.jsonl'));
const seen = new Set();
const emit = (pair, kind) => {
  const key = `${pair.query}\u0000${pair.document}`;
  if (seen.has(key)) return;
  seen.add(key);
  out.write(`${JSON.stringify(pair)}\n`);
  outputs[kind]++;
};
for (const root of roots) {
  for (const path of walk(root)) {
    if (path.endsWith('.d.ts') && statSync(path).size < 5_000_000) for (const pair of typescriptPairs(path)) emit(pair, 'typescript');
    else if (/\.(md|markdown)$/i.test(path) && statSync(path).size < 1_000_000) for (const pair of markdownPairs(path)) emit(pair, 'markdown');
  }
}
for (const pair of wordnetPairs('/usr/share/wordnet')) emit(pair, 'wordnet');
out.end();
console.error(outputs);
