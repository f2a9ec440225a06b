import { lexicalFieldsOf } from '../../lexical/fields.js';
import type { CatalogEntry, ChunkWrite } from '../spec.js';

/** A catalog entry for a test file (TypeScript unless the path says Python). */
export function catalogEntry(path: string, overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return {
    path,
    size: 100,
    mtimeMs: 1_700_000_000_000,
    contentHash: `hash-of-${path}`,
    language: path.endsWith('.py') ? 'python' : 'typescript',
    chunker: 'test@1',
    embedder: 'none',
    chunkCount: 0,
    indexedAt: 1_700_000_100_000,
    ...overrides,
  };
}

/** A chunk of a test file, with the lexical fields a writer derives. */
export function chunk(path: string, startLine: number, text: string, extra: Partial<ChunkWrite> = {}): ChunkWrite {
  const symbols = extra.symbols ?? (extra.symbol ? [extra.symbol] : []);
  const text_ = extra.text ?? text;
  return {
    chunkId: `${path}:${startLine}`,
    contentHash: `content:${text}`,
    startLine,
    endLine: startLine + text.split('\n').length - 1,
    language: path.endsWith('.py') ? 'python' : 'typescript',
    kind: 'code',
    text,
    symbols,
    headingPath: [],
    ...lexicalFieldsOf({ path, symbols: symbols.join(' '), heading: '', body: text_ }),
    ...extra,
  };
}
