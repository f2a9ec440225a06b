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
});
