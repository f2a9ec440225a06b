import { describe, expect, it } from 'vitest';
import { chunkFile } from '../chunk-file.js';

const symbolsOf = async (language: string, text: string) => {
  const chunks = await chunkFile({ path: `x.${language}`, text, language, tokenBudget: 500, windowLines: 100, windowOverlap: 10 });
  return chunks.flatMap((chunk) => chunk.symbols ?? []);
};

describe('symbols: every definition a chunk holds', () => {
  it('TypeScript: exported consts whatever they hold, through casts and parentheses', async () => {
    const text = [
      'export const createApp = ((...args) => {',
      '  return ensureRenderer().createApp(...args)',
      '}) as CreateAppFunction<Element>',
      'export const useStore = defineStore({ id: "main" })',
      'export const handler = (async (c) => c.json({})) satisfies Handler',
      'const local = 42',
      'const helper = (x: number) => x * 2',
      'const { a, b } = pair',
      'export interface Options { strict: boolean }',
      'export type Mode = "a" | "b"',
      'export enum Color { Red, Green }',
    ].join('\n');
    const symbols = await symbolsOf('typescript', text);
    expect(symbols).toEqual(expect.arrayContaining(['createApp', 'useStore', 'handler', 'helper', 'Options', 'Mode', 'Color']));
    expect(symbols).not.toContain('local');
  });

  it('TypeScript declarations (.d.ts): ambient modules, body-less functions, declare global', async () => {
    const text = [
      'declare module "fsx" {',
      '  export function readThing(path: string): string;',
      '  export interface Reader { readAll(): string }',
      '}',
      'export function readOther(path: string): string;',
      'export declare function readMore(path: string): string;',
      'declare function readLess(path: string): string;',
      'declare const version: string;',
      'declare global {',
      '  namespace NodeJS {',
      '    interface Process { nextTickish(callback: () => void): void }',
      '  }',
      '}',
    ].join('\n');
    expect(await symbolsOf('typescript', text)).toEqual([
      'fsx',
      'fsx.readThing',
      'fsx.Reader',
      'fsx.Reader.readAll',
      'readOther',
      'readMore',
      'readLess',
      'version',
      'NodeJS',
      'NodeJS.Process',
      'NodeJS.Process.nextTickish',
    ]);
  });

  it('TypeScript: a chunk holding several definitions records each of them', async () => {
    const text = [
      'export interface SchedulerJob extends Function { id?: number }',
      'export type SchedulerJobs = SchedulerJob | SchedulerJob[]',
      'type CountMap = Map<SchedulerJob, number>',
      'export function nextTick<T>(this: T, fn?: () => void): Promise<void> {',
      '  const p = currentFlushPromise || resolvedPromise',
      '  return fn ? p.then(fn) : p',
      '}',
    ].join('\n');
    expect(await symbolsOf('typescript', text)).toEqual(['SchedulerJob', 'SchedulerJobs', 'CountMap', 'nextTick']);
  });

  it('JavaScript: class fields holding functions are methods', async () => {
    const symbols = await symbolsOf('javascript', 'export class Router {\n  match = (path) => this.routes[path]\n  name = "r"\n}\n');
    expect(symbols).toEqual(['Router', 'Router.match']);
  });
});

describe('symbols: CommonJS assignments', () => {
  it('names methods assigned to objects, exports and prototypes', async () => {
    const text = [
      'res.send = function send(body) { return this.end(body) };',
      'exports.parse = (text) => JSON.parse(text);',
      'module.exports.compile = function () {};',
      'Router.prototype.route = function route(path) { return path };',
      'module.exports = createApplication;',
      'count = 1;',
      'res.locals = Object.create(null);',
      'res.set = res.header = function header(field, value) { return this };',
    ].join('\n');
    const symbols = await symbolsOf('javascript', text);
    expect(symbols).toEqual(['res.send', 'parse', 'compile', 'Router.route', 'res.set', 'res.header']);
  });
});

describe('a definition too big for one chunk', () => {
  const methods = (count: number, indent: string, line: (index: number) => string) => Array.from({ length: count }, (_, index) => line(index).replace(/^/gm, indent)).join('\n');
  it('Python: the class is defined by the piece holding its first line, beside its methods', async () => {
    const text = [
      'class CaseInsensitiveDict(MutableMapping):',
      '    """A case-insensitive dict-like object."""',
      methods(40, '    ', (index) => `def method_${index}(self, key):\n    value = self._store[key.lower()][1]\n    return value + ${index}\n`),
    ].join('\n');
    const chunks = await chunkFile({ path: 'structures.py', text, language: 'python', tokenBudget: 200, windowLines: 100, windowOverlap: 10 });
    expect(chunks.length).toBeGreaterThan(2);
    const first = chunks[0];
    expect(first?.symbol).toBe('CaseInsensitiveDict');
    expect(first?.symbols).toEqual(expect.arrayContaining(['CaseInsensitiveDict', 'CaseInsensitiveDict.method_0']));
    // Only that piece claims the class itself.
    expect(chunks.filter((chunk) => chunk.symbols?.includes('CaseInsensitiveDict'))).toHaveLength(1);
  });

  it('TypeScript: an exported class split by its methods keeps its name on the first piece', async () => {
    const text = [
      'export class SmartRouter<T> implements Router<T> {',
      methods(40, '  ', (index) => `match${index}(method: string, path: string) {\n  return this.routers[${index}].match(method, path)\n}`),
      '}',
    ].join('\n');
    const chunks = await chunkFile({ path: 'router.ts', text, language: 'typescript', tokenBudget: 200, windowLines: 100, windowOverlap: 10 });
    expect(chunks[0]?.symbols?.[0]).toBe('SmartRouter');
    expect(chunks.slice(1).some((chunk) => chunk.symbols?.includes('SmartRouter'))).toBe(false);
  });
});
