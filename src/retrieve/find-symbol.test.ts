import { describe, expect, it } from 'vitest';
import type { ChunkRecord, Store } from '../store/spec.js';
import { findSymbolDefinitions } from './find-symbol.js';

const chunk = (rowId: number, startLine: number, lines: string[], symbols: string[]): ChunkRecord => ({
  rowId,
  chunkId: `c${rowId}`,
  contentHash: `h${rowId}`,
  path: 'lib/response.js',
  startLine,
  endLine: startLine + lines.length - 1,
  language: 'javascript',
  kind: 'code',
  symbols,
  headingPath: [],
  text: lines.join('\n'),
});

// A long doc comment split from its definition by the chunk budget: both pieces record the name.
const docComment = chunk(1, 332, ['/**', ' * Transfer the file at the given `path`.', ' *', ' *     res.sendFile(path, { root })', ' */'], ['res.sendFile']);
const code = chunk(2, 373, ['res.sendFile = function sendFile(path, options, callback) {', '  var done = callback;', '};'], ['res.sendFile']);

const fakeStore = (records: ChunkRecord[]) =>
  ({
    findMentions: async () => records.map((record) => ({ rowId: record.rowId, score: 1, path: record.path })),
    getChunks: async (rowIds: number[]) => records.filter((record) => rowIds.includes(record.rowId)),
    getCatalogEntries: async () => new Map(),
    languages: async () => ['javascript'],
    lexicalRanking: 'bm25',
  }) as unknown as Store;

describe('findSymbolDefinitions', () => {
  it('puts the piece with the code before a piece that is only its doc comment, and never points at a comment line', async () => {
    const { results } = await findSymbolDefinitions(fakeStore([docComment, code]), 'res.sendFile');
    expect(results.map((result) => result.startLine)).toEqual([373, 332]);
    expect(results[0]?.line).toBe(373);
    expect(results[1]?.line).toBeUndefined(); // the comment mentions res.sendFile( but defines nothing there
  });

  it('returns a function split by the budget once, at its declaration, not at a call in a later piece', async () => {
    const head = { ...chunk(3, 10, ['  def invoke(self, ctx):', '      def _process_result(value):', '          return value'], ['Group.invoke']), path: 'src/click/core.py' };
    const tail = { ...chunk(4, 13, ['      with ctx:', '          rv = super().invoke(ctx)', '          return _process_result(rv)'], ['Group.invoke']), path: 'src/click/core.py' };
    const other = { ...chunk(5, 40, ['  def invoke(self, ctx):', '      return ctx.invoke(self.callback)'], ['Command.invoke']), path: 'src/click/core.py' };
    const { results } = await findSymbolDefinitions(fakeStore([tail, head, other]), 'Group.invoke');
    expect(results.map((result) => [result.startLine, result.line])).toEqual([[10, 10]]);
    // A definition the declaration pattern does not know keeps every piece.
    const unknown = [{ ...head, text: 'invoke <- proc(ctx)' }, tail];
    expect((await findSymbolDefinitions(fakeStore(unknown), 'Group.invoke')).results.map((result) => result.startLine)).toEqual([10, 13]);
  });
});
