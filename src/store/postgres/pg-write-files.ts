import { LociError } from '../../errors/index.js';
import { encodeTerms, termAt, type ChunkTermStats } from '../../lexical/codec.js';
import type { FileWrite } from '../spec.js';
import { symbolKeys } from '../rows.js';
import type { PgClient } from './connection.js';
import { pgText, tsvectorLiteral, vectorLiteral } from './pg-values.js';

/** Term ids of one namespace's lexicon, cached (ids never change once committed). */
export class Lexicon {
  private ids = new Map<string, number>();

  /** Runs inside a write transaction: new terms get their ids in the same commit. */
  async idsFor(client: PgClient, s: string, termLists: Iterable<Iterable<string>>): Promise<Map<string, number>> {
    const missing = new Set<string>();
    for (const terms of termLists) for (const term of terms) if (!this.ids.has(term)) missing.add(term);
    if (missing.size > 0) {
      const terms = [...missing].map(pgText);
      await client.query(`INSERT INTO ${s}.lexicon (term) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (term) DO NOTHING`, [terms]);
      const rows = await client.query<{ id: number; term: string }>(`SELECT id, term FROM ${s}.lexicon WHERE term = ANY($1::text[])`, [terms]);
      const found = new Map(rows.rows.map((row) => [row.term, row.id]));
      for (const term of missing) {
        const id = found.get(pgText(term));
        if (id === undefined) throw new LociError('INTERNAL', `Lexicon term "${term.slice(0, 40)}" was not stored.`);
        this.ids.set(term, id);
      }
    }
    return this.ids;
  }

  /** Ids cached during a rolled-back transaction were never committed. */
  reset(): void {
    this.ids = new Map();
  }
}

function* termsOf(stats: ChunkTermStats): Iterable<string> {
  for (let index = 0; index < stats.refs.length; index++) yield termAt(stats, index);
}

export async function insertVectors(client: PgClient, s: string, rows: Array<[string, string, string]>, now: number): Promise<void> {
  await client.query(
    `INSERT INTO ${s}.embeddings (embedder, content_hash, vector, created_at)
     SELECT u.embedder, u.hash, u.vector::vector, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS u(embedder, hash, vector)
     ON CONFLICT (embedder, content_hash) DO NOTHING`,
    [rows.map((row) => row[0]), rows.map((row) => row[1]), rows.map((row) => row[2]), now],
  );
}

/**
 * Replaces a group of files inside the caller's write transaction: their old chunks (and,
 * by cascade, symbol rows) go, the new chunks, symbols, vectors and catalog rows come, in a
 * few set-based statements whatever the group's size.
 */
export async function writeFileGroup(client: PgClient, s: string, files: FileWrite[], lexicon: Lexicon): Promise<void> {
  await client.query(`DELETE FROM ${s}.chunks WHERE path = ANY($1::text[])`, [files.map((write) => pgText(write.entry.path))]);
  const chunks = files.flatMap((write) => write.chunks.map((chunk) => ({ write, chunk })));
  const ids = await lexicon.idsFor(
    client,
    s,
    chunks.map(({ chunk }) => termsOf(chunk.termStats)),
  );
  const now = Date.now();
  if (chunks.length > 0) {
    const column = <T>(pick: (item: (typeof chunks)[number]) => T) => chunks.map(pick);
    const inserted = await client.query<{ id: number; ord: string }>(
      `INSERT INTO ${s}.chunks (chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text, tsv, terms)
       SELECT u.chunk_id, u.content_hash, u.path, u.start_line, u.end_line, u.language, u.kind, u.symbol, u.symbols, u.heading_path, u.text, u.tsv::tsvector, u.terms
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bytea[])
         WITH ORDINALITY AS u(chunk_id, content_hash, path, start_line, end_line, language, kind, symbol, symbols, heading_path, text, tsv, terms, ord)
       ORDER BY u.ord
       RETURNING id`,
      [
        column(({ chunk }) => chunk.chunkId),
        column(({ chunk }) => chunk.contentHash),
        column(({ write }) => pgText(write.entry.path)),
        column(({ chunk }) => chunk.startLine),
        column(({ chunk }) => chunk.endLine),
        column(({ chunk }) => chunk.language),
        column(({ chunk }) => chunk.kind),
        column(({ chunk }) => chunk.symbol ?? null),
        column(({ chunk }) => JSON.stringify(chunk.symbols ?? [])),
        column(({ chunk }) => JSON.stringify(chunk.headingPath ?? [])),
        column(({ chunk }) => (typeof chunk.text === 'string' ? pgText(chunk.text) : chunk.text)),
        column(({ chunk }) => tsvectorLiteral(chunk.lexical)),
        column(({ chunk }) => Buffer.from(encodeTerms(chunk.termStats, (ref) => ids.get(chunk.termStats.table.terms[ref] as string) as number))),
      ],
    );
    // Identity values follow the insertion order (ORDER BY ord), so the nth id is the nth chunk's.
    const rowIds = inserted.rows.map((row) => row.id).sort((a, b) => a - b);
    const names: string[] = [];
    const owners: number[] = [];
    chunks.forEach(({ chunk }, index) => {
      for (const name of symbolKeys(chunk.symbols ?? (chunk.symbol ? [chunk.symbol] : []))) {
        names.push(name);
        owners.push(rowIds[index] as number);
      }
    });
    if (names.length > 0) await client.query(`INSERT INTO ${s}.symbol_names (name, chunk) SELECT * FROM unnest($1::text[], $2::int[])`, [names, owners]);
    const vectors = new Map<string, [string, string]>();
    for (const { write, chunk } of chunks) if (chunk.vector) vectors.set(`${write.entry.embedder}\n${chunk.contentHash}`, [write.entry.embedder, chunk.contentHash]);
    if (vectors.size > 0) {
      const literals = new Map<string, string>();
      for (const { write, chunk } of chunks) if (chunk.vector) literals.set(`${write.entry.embedder}\n${chunk.contentHash}`, vectorLiteral(chunk.vector));
      await insertVectors(
        client,
        s,
        [...vectors].map(([key, [embedder, hash]]) => [embedder, hash, literals.get(key) as string]),
        now,
      );
    }
  }
  await client.query(
    `INSERT INTO ${s}.files (path, size, mtime_ms, content_hash, language, chunker, embedder, chunk_count, indexed_at, attributes)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::bigint[], $10::text[])
     ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, content_hash = excluded.content_hash,
       language = excluded.language, chunker = excluded.chunker, embedder = excluded.embedder,
       chunk_count = excluded.chunk_count, indexed_at = excluded.indexed_at, attributes = excluded.attributes`,
    [
      files.map((write) => pgText(write.entry.path)),
      files.map((write) => write.entry.size),
      files.map((write) => write.entry.mtimeMs),
      files.map((write) => write.entry.contentHash),
      files.map((write) => write.entry.language),
      files.map((write) => write.entry.chunker),
      files.map((write) => write.entry.embedder),
      files.map((write) => write.chunks.length),
      files.map((write) => write.entry.indexedAt),
      files.map((write) => (write.entry.attributes !== undefined ? pgText(write.entry.attributes) : null)),
    ],
  );
}
