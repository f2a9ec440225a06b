import { describe, expect, it } from 'vitest';
import { chunkFile, chunkFileWithOutcome } from '../chunk-file.js';
import type { ChunkDraft } from '../spec.js';

const options = { tokenBudget: 500, windowLines: 100, windowOverlap: 10 };
const chunk = (language: string, text: string, budget = 500) => chunkFile({ path: `x.${language}`, text, language, ...options, tokenBudget: budget });
const summary = (chunks: ChunkDraft[]) => chunks.map((c) => [c.startLine, c.endLine, c.symbol ?? null]);

function expectExactSlices(text: string, chunks: ChunkDraft[]) {
  const lines = text.split('\n');
  for (const c of chunks) expect(c.text).toBe(lines.slice(c.startLine - 1, c.endLine).join('\n'));
}

function expectCovers(text: string, chunks: ChunkDraft[]) {
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const lineNumber = index + 1;
    expect(
      chunks.some((c) => c.startLine <= lineNumber && lineNumber <= c.endLine),
      `line ${lineNumber} "${line}" is in no chunk`,
    ).toBe(true);
  });
}

/** A class whose methods are each ~60 tokens, so a small budget forces a split into methods. */
const typescriptClass = [
  "import { db } from './db.js';", // 1
  '', // 2
  'export class UserService {', // 3
  '  private cache = new Map<string, string>();', // 4
  '', // 5
  '  // Looks a user up by id.', // 6
  '  async findById(id: string): Promise<string | undefined> {', // 7
  '    const cached = this.cache.get(id);', // 8
  '    if (cached) return cached;', // 9
  "    const row = await db.query('select name from users where id = ?', [id]);", // 10
  '    return row?.name;', // 11
  '  }', // 12
  '', // 13
  '  async rename(id: string, name: string): Promise<void> {', // 14
  "    await db.query('update users set name = ? where id = ?', [name, id]);", // 15
  '    this.cache.set(id, name);', // 16
  '  }', // 17
  '}', // 18
  '', // 19
  'export const formatUser = (name: string) => `User ${name}`;', // 20
  '', // 21
].join('\n');

describe('code chunker: boundaries per language', () => {
  it('TypeScript: a class that fits stays whole; imports pack with it', async () => {
    const chunks = await chunk('typescript', typescriptClass);
    expect(summary(chunks)).toEqual([[1, 20, 'UserService']]);
    expect(chunks[0]!.symbols).toEqual(['UserService', 'UserService.findById', 'UserService.rename', 'formatUser']);
    expectExactSlices(typescriptClass, chunks);
  });

  it('TypeScript: an oversized class is split into its members with qualified symbols', async () => {
    const chunks = await chunk('typescript', typescriptClass, 120);
    expectExactSlices(typescriptClass, chunks);
    expectCovers(typescriptClass, chunks);
    const symbols = chunks.map((c) => c.symbol);
    expect(symbols).toContain('UserService.findById');
    expect(symbols).toContain('UserService.rename');
    const find = chunks.find((c) => c.symbol === 'UserService.findById')!;
    expect(find.startLine).toBeLessThanOrEqual(6); // the doc comment travels with its method
    expect(find.endLine).toBe(12);
    expect(chunks.find((c) => c.symbol === 'formatUser')).toMatchObject({ startLine: 20, endLine: 20 });
  });

  it('TSX and JavaScript: components and arrow functions are definitions', async () => {
    const tsx = 'import React from "react";\n\nexport function Button({ label }: { label: string }) {\n  return <button>{label}</button>;\n}\n\nexport const Card = () => <div className="card" />;\n';
    const chunks = await chunk('tsx', tsx, 40);
    expect(chunks.map((c) => c.symbol)).toEqual(expect.arrayContaining(['Button', 'Card']));
    expectExactSlices(tsx, chunks);
    const js = 'const add = (a, b) => a + b;\n\nfunction mul(a, b) {\n  return a * b;\n}\n\nmodule.exports = { add, mul };\n';
    const jsChunks = await chunk('javascript', js);
    expect(jsChunks[0]!.symbols).toEqual(['add', 'mul']);
  });

  it('Python: decorated functions and classes with qualified methods', async () => {
    const python = [
      'import os', // 1
      '', // 2
      '@cache', // 3
      'def load_config(path):', // 4
      '    """Reads the config file at path and returns its parsed contents."""', // 5
      '    with open(path) as handle:', // 6
      '        return handle.read()', // 7
      '', // 8
      'class Store:', // 9
      '    def get(self, key):', // 10
      '        return self.values.get(key, "some default value that is fairly long")', // 11
      '', // 12
      '    def put(self, key, value):', // 13
      '        self.values[key] = value if value is not None else "another fairly long default"', // 14
      '', // 15
    ].join('\n');
    const chunks = await chunk('python', python, 60);
    expectExactSlices(python, chunks);
    expectCovers(python, chunks);
    expect(chunks.find((c) => c.symbol === 'load_config')).toMatchObject({ endLine: 7 });
    // The piece holding `class Store:` is labelled by the class and also defines its first method.
    expect(chunks.find((c) => c.symbols?.includes('Store.get'))).toMatchObject({ startLine: 9, endLine: 11, symbol: 'Store', symbols: ['Store', 'Store.get'] });
    expect(chunks.find((c) => c.symbol === 'Store.put')).toMatchObject({ startLine: 13, endLine: 14 });
  });

  it('Go: methods are qualified by their receiver type', async () => {
    const go =
      'package server\n\ntype Server struct {\n\taddr string\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\nfunc NewServer(addr string) *Server {\n\treturn &Server{addr: addr}\n}\n';
    const chunks = await chunk('go', go);
    expect(chunks[0]!.symbols).toEqual(['Server', 'Server.Start', 'NewServer']);
    const small = await chunk('go', go, 25);
    expect(small.map((c) => c.symbol)).toEqual(expect.arrayContaining(['Server', 'Server.Start', 'NewServer']));
    expectExactSlices(go, small);
  });

  it('Rust: impl blocks qualify their functions by type, traits included', async () => {
    const rust =
      'use std::fmt;\n\npub struct Point {\n    x: i32,\n}\n\nimpl fmt::Display for Point {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, "({})", self.x)\n    }\n}\n\nimpl<T> Wrapper<T> {\n    pub fn new(value: T) -> Self {\n        Wrapper { value }\n    }\n\n    pub fn get(&self) -> &T {\n        &self.value\n    }\n}\n';
    const chunks = await chunk('rust', rust);
    expect(chunks[0]!.symbols).toEqual(['Point', 'Point', 'Point.fmt', 'Wrapper', 'Wrapper.new', 'Wrapper.get']);
    const small = await chunk('rust', rust, 25);
    expect(small.map((c) => c.symbol)).toEqual(expect.arrayContaining(['Wrapper.new', 'Wrapper.get']));
    expectCovers(rust, small);
  });

  it('Java: classes, constructors and methods', async () => {
    const java =
      'package billing;\n\nimport java.util.List;\n\npublic class InvoiceService {\n    private final List<String> ids;\n\n    public InvoiceService(List<String> ids) {\n        this.ids = ids;\n    }\n\n    public int count() {\n        return ids.size();\n    }\n}\n';
    const chunks = await chunk('java', java);
    expect(chunks[0]!.symbols).toEqual(['InvoiceService', 'InvoiceService.InvoiceService', 'InvoiceService.count']);
    const small = await chunk('java', java, 30);
    // the class's closing brace travels with its last member
    expect(small.find((c) => c.symbol === 'InvoiceService.count')).toMatchObject({ startLine: 12, endLine: 15 });
  });

  it('C#: namespaces, classes, properties and methods', async () => {
    const csharp =
      'using System;\n\nnamespace Game.Assistant\n{\n    public class MemoryLog\n    {\n        public string Path { get; set; }\n\n        public void Append(string line)\n        {\n            System.IO.File.AppendAllText(Path, line);\n        }\n    }\n}\n';
    const chunks = await chunk('csharp', csharp);
    expect(chunks[0]!.symbols).toEqual(['Game.Assistant', 'Game.Assistant.MemoryLog', 'Game.Assistant.MemoryLog.Path', 'Game.Assistant.MemoryLog.Append']);
    const small = await chunk('csharp', csharp, 40);
    expect(small.map((c) => c.symbol)).toContain('Game.Assistant.MemoryLog.Append');
    expectExactSlices(csharp, small);
  });

  it('splits a function too big for the budget by lines, each piece under budget', async () => {
    const body = Array.from({ length: 80 }, (_, index) => `  total += compute(values[${index}], factor, offset);`).join('\n');
    const text = `function sumAll(values) {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    const chunks = await chunk('javascript', text, 120);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.symbol === 'sumAll')).toBe(true);
    expectExactSlices(text, chunks);
    expectCovers(text, chunks);
  });

  it('handles CRLF, empty files and syntax errors without throwing', async () => {
    const crlf = 'def a():\r\n    return 1\r\n\r\ndef b():\r\n    return 2\r\n';
    const chunks = await chunk('python', crlf, 14);
    expect(chunks.map((c) => c.symbol)).toEqual(['a', 'b']);
    expect(chunks[0]!.text).toBe('def a():\r\n    return 1\r');
    expect(await chunk('typescript', '')).toEqual([]);
    const broken = 'function ok() { return 1 }\n\nfunction broken( {\n  if (\n}\n\nfunction after() { return 2 }\n';
    const brokenChunks = await chunk('typescript', broken);
    expectCovers(broken, brokenChunks);
  });

  it('cuts a minified one-line file by characters', async () => {
    const minified = `var a=${'x+'.repeat(3000)}1;`;
    const chunks = await chunk('javascript', minified, 100);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.map((c) => c.text).join('')).toBe(minified);
  });
});

describe('code chunker on hostile nesting', () => {
  // Each opener starts a definition whose body holds one more: the chunker used to recurse
  // once per level and overflow the stack ("Maximum call stack size exceeded").
  const deep: Array<[string, string, string]> = [
    ['typescript', 'function f(){', '}'],
    ['rust', 'mod a{', '}'],
    ['java', 'class A{', '}'],
    ['cpp', 'namespace a{', '}'],
  ];

  it.each(deep)('cuts 8,000-deep %s into line windows, says so, and covers every line', async (language, open, close) => {
    const text = `${open.repeat(8000)}${close.repeat(8000)}\nconst after = 1;\n`;
    const outcome = await chunkFileWithOutcome({ path: `deep.${language}`, text, language, ...options });
    expect(outcome.fallback).toMatch(/^tree-sitter: Definitions nest deeper than 32 levels/);
    expect(outcome.drafts.length).toBeGreaterThan(0);
    expect(outcome.drafts.every((draft) => draft.kind === 'window')).toBe(true);
    expect(
      outcome.drafts
        .filter((draft) => draft.startLine === 1)
        .map((draft) => draft.text)
        .join(''),
    ).toBe(text.split('\n')[0]);
    expectCovers(text, outcome.drafts);
  });

  it('still opens moderately nested definitions by syntax, with no fallback', async () => {
    const levels = 20;
    const text = `${Array.from({ length: levels }, (_, level) => `${'  '.repeat(level)}function level${level}() {`).join('\n')}\n${Array.from({ length: levels }, (_, level) => `${'  '.repeat(levels - level - 1)}}`).join('\n')}\n`;
    const outcome = await chunkFileWithOutcome({ path: 'nested.ts', text, language: 'typescript', ...options, tokenBudget: 40 });
    expect(outcome.fallback).toBeUndefined();
    expect(outcome.drafts.every((draft) => draft.kind === 'code')).toBe(true);
    expectCovers(text, outcome.drafts);
  });
});
