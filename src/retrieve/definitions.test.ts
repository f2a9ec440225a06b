import { describe, expect, it } from 'vitest';
import type { ChunkRecord } from '../store/spec.js';
import { bestDefined, definitionLine, definitionMatch, definitionsFirst, nameQuery } from './definitions.js';
import type { FusionCandidate } from './fusion.js';

const candidate = (rowId: number, path: string, score: number): FusionCandidate => ({ rowId, path, score, signals: {}, contributions: {} });
const record = (rowId: number, path: string, symbols: string[]): ChunkRecord =>
  ({ rowId, path, symbols, startLine: 1, endLine: 2, language: 'typescript', kind: 'code', headingPath: [], text: '', chunkId: String(rowId), contentHash: '' }) as unknown as ChunkRecord;

describe('nameQuery', () => {
  it('takes identifiers, qualified names and kebab names; not questions', () => {
    expect(nameQuery('nextTick')).toEqual({ name: 'nextTick', keys: ['nexttick'] });
    expect(nameQuery('`Router.match()`')).toEqual({ name: 'Router.match', keys: ['router.match'] });
    expect(nameQuery('Foo::bar')?.name).toBe('Foo.bar');
    expect(nameQuery('use-model')?.keys).toEqual(['usemodel', 'use_model', 'use-model']);
    expect(nameQuery('how does nextTick work')).toBeUndefined();
    // One character is a name too (vue's `h`); an empty or spaced query is not.
    expect(nameQuery('h')).toEqual({ name: 'h', keys: ['h'] });
    expect(nameQuery(' ')).toBeUndefined();
  });

  it('grades matches: exact, other case or spelling, last segment', () => {
    const query = nameQuery('useModel')!;
    expect(definitionMatch(['useModel'], query)).toBe(3);
    expect(definitionMatch(['UseModel'], query)).toBe(2);
    expect(definitionMatch(['Helpers.useModel'], query)).toBe(1.5);
    expect(definitionMatch(['Helpers.usemodel'], query)).toBe(1);
    expect(definitionMatch(['useModelValue'], query)).toBe(0);
    expect(definitionMatch(['use_model'], nameQuery('use-model')!)).toBe(2);
  });

  it("labels a chunk defining several matches with the query's own spelling", () => {
    expect(bestDefined(['Reactive', 'reactive', 'toRaw'], nameQuery('reactive')!)).toBe('reactive');
    expect(bestDefined(['Reactive', 'toRaw'], nameQuery('reactive')!)).toBe('Reactive');
    expect(bestDefined(['toRaw'], nameQuery('reactive')!)).toBeUndefined();
  });
});

describe('definitionsFirst', () => {
  it('lifts the defining chunks above everything that only mentions the name, implementation first', () => {
    const candidates = [candidate(1, 'src/a.test.ts', 0.9), candidate(2, 'src/other.ts', 0.8), candidate(3, 'test/helpers.ts', 0.3), candidate(4, 'src/scheduler.ts', 0.2)];
    const records = new Map([
      [1, record(1, 'src/a.test.ts', [])],
      [2, record(2, 'src/other.ts', ['other'])],
      [3, record(3, 'test/helpers.ts', ['nextTick'])],
      [4, record(4, 'src/scheduler.ts', ['SchedulerJob', 'nextTick'])],
    ]);
    const roles = new Map([
      ['src/a.test.ts', 'test' as const],
      ['test/helpers.ts', 'test' as const],
      ['src/scheduler.ts', 'implementation' as const],
      ['src/other.ts', 'implementation' as const],
    ]);
    const ordered = definitionsFirst(candidates, records, roles, nameQuery('nextTick')!);
    expect(ordered.map((c) => c.rowId)).toEqual([4, 3, 1, 2]);
    // Scores stay in order and on the 0–1 scale.
    for (let index = 1; index < ordered.length; index++) expect(ordered[index - 1]!.score).toBeGreaterThanOrEqual(ordered[index]!.score);
    expect(ordered[0]!.score).toBeLessThanOrEqual(1);
  });

  it('leaves the order alone when nothing defines the name', () => {
    const candidates = [candidate(1, 'a.ts', 0.9), candidate(2, 'b.ts', 0.5)];
    expect(definitionsFirst(candidates, new Map(), new Map(), nameQuery('nope')!)).toBe(candidates);
  });
});

describe('isCommentOnly', () => {
  it('tells a doc-comment piece from code', async () => {
    const { isCommentOnly } = await import('./definitions.js');
    expect(isCommentOnly('/// Map the request with state.\n///\n/// # Example\n')).toBe(true);
    expect(isCommentOnly('/**\n * Check if the given type is acceptable.\n */\n')).toBe(true);
    expect(isCommentOnly('# helper\n# more\n')).toBe(true);
    expect(isCommentOnly('/// docs\npub fn map_request_with_state() {}\n')).toBe(false);
    expect(isCommentOnly('#[derive(Debug)]\nstruct A;\n')).toBe(false);
    expect(isCommentOnly('\n\n')).toBe(false);
  });
});

describe('definitionLine', () => {
  const at = (lines: string[], symbol: string) => definitionLine({ text: lines.join('\n'), startLine: 27 }, symbol);
  it('finds the declaration, not the first mention', () => {
    const scheduler = [
      'export interface SchedulerJob extends Function {',
      '  id?: number',
      '}',
      '// nextTick waits for the flush',
      'const p = nextTick()',
      'export function nextTick<T = void>(this: T, fn?: () => void): Promise<void> {',
      '  return p',
      '}',
    ];
    expect(at(scheduler, 'nextTick')).toBe(32);
    expect(at(scheduler, 'SchedulerJob')).toBe(27);
  });

  it('reads the common declaration forms of each language', () => {
    expect(at(['class Store:', '    def get(self, key):', '        return 1'], 'Store.get')).toBe(28);
    expect(at(['res.json(x)', 'res.send = function send(body) {'], 'res.send')).toBe(28);
    expect(at(['// uses Route', 'func (mx *Mux) Route(pattern string, fn func(r Router)) Router {'], 'Mux.Route')).toBe(28);
    expect(at(['impl Router {', '    pub fn nest(self, path: &str) -> Self {'], 'Router.nest')).toBe(28);
    expect(at(['export const createApp = ((...args) => {'], 'createApp')).toBe(27);
    expect(at(['  match(method: string, path: string) {'], 'SmartRouter.match')).toBe(27);
    expect(at(['nothing here'], 'absent')).toBeUndefined();
    // Only a comment names it (a doc comment split from its code): no line to point at.
    expect(at(['/**', ' * Use res.sendFile() to send a file.', ' */'], 'res.sendFile')).toBeUndefined();
  });
});
