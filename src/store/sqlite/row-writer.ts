import { encodeTerms } from '../../lexical/codec.js';
import { ListTermIds } from '../list-term-ids.js';
import { symbolKeys } from '../rows.js';
import type { FileWrite } from '../spec.js';
import type { Statements } from './statements.js';
import { encodeVector } from './vector-codec.js';

/** Deleted rows between two trims of the deletion log. */
const TRIM_EVERY = 4_096;
/** Terms looked up one by one before a write reads the whole lexicon (see RowWriter.termIdOf). */
const WHOLE_LEXICON_AFTER = 20_000;

/**
 * The SQLite store's write path, run inside the caller's transaction: a file's chunk, term,
 * symbol and vector rows and its catalog row; a new lexicon term gets its id in the same commit.
 */
export class RowWriter {
  /** Lexicon ids are immutable once committed, so a cached id is always right (forgetTermIds after a rollback). */
  private termIds = new Map<string, number>();
  /** Whether termIds holds the whole lexicon (read once a run has looked up enough terms one by one). */
  private wholeLexicon = false;
  private lookups = 0;
  private deletedSinceTrim = 0;
  /** Lookups after which the whole lexicon is read (set at the first lookup). */
  private readWholeAfter: number | undefined;
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
    // The deletion log (schema 4) is kept to its newest rows, trimmed in the deleting transaction.
    this.deletedSinceTrim += ids.length;
    if (this.deletedSinceTrim >= TRIM_EVERY) {
      this.deletedSinceTrim = 0;
      this.statements.trimTombstones.run();
    }
  }

  /** A rolled-back write may have cached term ids that were never committed. */
  forgetTermIds(): void {
    this.termIds = new Map();
    this.wholeLexicon = false;
    this.lookups = 0;
    this.readWholeAfter = undefined;
    this.listTermIds.clear();
  }

  /**
   * A term's lexicon id, inserting it when new. A small write looks each term up in SQLite
   * (a few microseconds); past WHOLE_LEXICON_AFTER lookups, or an eighth of the lexicon, the
   * whole lexicon is read into memory once (at 370k terms ~0.7 s: worth it for a big run,
   * not for adding one document to a big store).
   */
  private termIdOf(term: string): number {
    let id = this.termIds.get(term);
    if (id !== undefined) return id;
    this.readWholeAfter ??= Math.max(WHOLE_LEXICON_AFTER, ((this.statements.lastTermId.get() as number | null) ?? 0) / 8);
    if (!this.wholeLexicon && ++this.lookups > this.readWholeAfter) {
      for (const [known, text] of this.statements.lexiconAfter.all(0) as Array<[number, string]>) this.termIds.set(text, known);
      this.wholeLexicon = true;
      id = this.termIds.get(term);
    } else if (!this.wholeLexicon) {
      id = this.statements.termId.get(term) as number | undefined;
    }
    if (id !== undefined) this.termIds.set(term, id);
    else {
      // A new term's id is the insert's rowid; another process may have added it since the cache was read.
      const inserted = this.statements.insertTerm.run(term);
      id = inserted.changes === 1 ? Number(inserted.lastInsertRowid) : (this.statements.termId.get(term) as number);
      this.termIds.set(term, id);
    }
    return id;
  }
}
