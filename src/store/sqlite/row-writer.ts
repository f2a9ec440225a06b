import { encodeTerms } from '../../lexical/codec.js';
import { ListTermIds } from '../list-term-ids.js';
import { symbolKeys } from '../rows.js';
import type { FileWrite } from '../spec.js';
import type { Statements } from './statements.js';
import { encodeVector } from './vector-codec.js';

/**
 * The SQLite store's write path, run inside the caller's transaction: a file's chunk, term,
 * symbol and vector rows and its catalog row; a new lexicon term gets its id in the same commit.
 */
export class RowWriter {
  /** Lexicon ids are immutable once committed, so a cached id is always right (forgetTermIds after a rollback). */
  private termIds: Map<string, number> | undefined;
  private readonly listTermIds = new ListTermIds();

  constructor(private readonly statements: Statements) {}

  /** Replaces one file's rows. */
  writeFile(write: FileWrite): void {
    const { entry, chunks } = write;
    const now = Date.now();
    this.removeChunksOfPath(entry.path);
    for (const chunk of chunks) {
      const result = this.statements.insertChunk.run({
        chunkId: chunk.chunkId,
        contentHash: chunk.contentHash,
        path: entry.path,
        startLine: chunk.startLine,
        endLine: chunk.endLine,
        language: chunk.language,
        kind: chunk.kind,
        symbol: chunk.symbol ?? null,
        symbols: JSON.stringify(chunk.symbols ?? []),
        headingPath: JSON.stringify(chunk.headingPath ?? []),
        text: chunk.text,
      });
      const rowId = Number(result.lastInsertRowid);
      const termId = this.listTermIds.resolver(chunk.termStats.table, (term) => this.termIdOf(term));
      this.statements.insertTerms.run(rowId, encodeTerms(chunk.termStats, termId));
      for (const name of symbolKeys(chunk.symbols ?? (chunk.symbol ? [chunk.symbol] : []))) this.statements.insertSymbol.run(name, rowId);
      if (chunk.vector) this.statements.insertVector.run(entry.embedder, chunk.contentHash, encodeVector(chunk.vector), now);
    }
    this.statements.upsertFile.run({ ...entry, chunkCount: chunks.length, attributes: entry.attributes ?? null });
  }

  removeChunksOfPath(path: string): void {
    const ids = this.statements.chunkIdsOfPath.all(path) as number[];
    for (const id of ids) {
      this.statements.deleteTerms.run(id);
      this.statements.deleteSymbols.run(id);
    }
    this.statements.deleteChunksOfPath.run(path);
  }

  /** A rolled-back write may have cached term ids that were never committed. */
  forgetTermIds(): void {
    this.termIds = undefined;
    this.listTermIds.clear();
  }

  private termIdOf(term: string): number {
    if (!this.termIds) {
      this.termIds = new Map();
      for (const [id, text] of this.statements.lexiconAfter.all(0) as Array<[number, string]>) this.termIds.set(text, id);
    }
    let id = this.termIds.get(term);
    if (id === undefined) {
      // A new term's id is the insert's rowid; another process may have added it since the cache was read.
      const inserted = this.statements.insertTerm.run(term);
      id = inserted.changes === 1 ? Number(inserted.lastInsertRowid) : (this.statements.termId.get(term) as number);
      this.termIds.set(term, id);
    }
    return id;
  }
}
