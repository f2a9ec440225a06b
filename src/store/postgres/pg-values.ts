import { LEXICAL_FIELDS } from '../../lexical/codec.js';
import type { LexicalFields, LexicalWeights, SearchFilter } from '../spec.js';

/**
 * Value encodings between loci and PostgreSQL: tsvector and tsquery literals built from
 * loci's own code-aware tokens (so Postgres never re-parses them), pgvector literals, and
 * pgvector's binary form.
 */

// tsvector weight letters by field: ts_rank's weight array is ordered {D, C, B, A}.
const FIELD_LETTER: Record<(typeof LEXICAL_FIELDS)[number], 'A' | 'B' | 'C' | 'D'> = { path: 'A', symbols: 'B', heading: 'C', body: 'D' };
/** Postgres caps lexemes at 2 KB and positions at 16,383. */
const MAX_LEXEME_BYTES = 500;
const MAX_POSITION = 16_383;

/** PostgreSQL text cannot hold NUL; loci stores U+FFFD in its place. */
export function pgText(text: string): string {
  return text.includes('\0') ? text.replace(/\0/g, '\uFFFD') : text;
}

function lexemeLiteral(token: string): string | undefined {
  if (token.length === 0 || token.includes('\0') || Buffer.byteLength(token) > MAX_LEXEME_BYTES) return undefined;
  return `'${token.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The chunk's tokens as a tsvector literal, each position weighted by its field. */
export function tsvectorLiteral(fields: LexicalFields): string {
  const positions = new Map<string, string[]>();
  let position = 0;
  for (const field of LEXICAL_FIELDS) {
    const text = fields[field];
    if (!text) continue;
    const letter = FIELD_LETTER[field];
    for (const token of text.split(' ')) {
      if (!token) continue;
      position = Math.min(position + 1, MAX_POSITION);
      let list = positions.get(token);
      if (!list) positions.set(token, (list = []));
      // Positions past the cap collapse onto it; a lexeme keeps at most 256 positions.
      if (list.length < 256) list.push(`${position}${letter === 'D' ? '' : letter}`);
    }
  }
  const parts: string[] = [];
  for (const [token, list] of positions) {
    const literal = lexemeLiteral(token);
    if (literal) parts.push(`${literal}:${list.join(',')}`);
  }
  return parts.join(' ');
}

/** Any of the terms, as a tsquery literal; undefined when no term survives. */
export function tsqueryLiteral(terms: readonly string[]): string | undefined {
  const literals = [...new Set(terms)].flatMap((term) => {
    const literal = lexemeLiteral(term);
    return literal ? [literal] : [];
  });
  return literals.length > 0 ? literals.join(' | ') : undefined;
}

/** ts_rank's weight array {D, C, B, A}, scaled into (0, 1] as Postgres requires. */
export function rankWeights(weights: LexicalWeights): number[] {
  const ordered = [weights.body, weights.heading, weights.symbols, weights.path].map((weight) => Math.max(0, weight));
  const top = Math.max(...ordered) || 1;
  return ordered.map((weight) => weight / top);
}

export function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/** Decodes pgvector's binary form (vector_send): int16 dimensions, int16 unused, big-endian float4s. */
export function decodeVectorSend(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensions = view.getUint16(0);
  const vector = new Float32Array(dimensions);
  for (let index = 0; index < dimensions; index++) vector[index] = view.getFloat32(4 + index * 4);
  return vector;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteLiteral(value: string): string {
  return `'${pgText(value).replace(/'/g, "''")}'`;
}

/**
 * A WHERE fragment over the chunks alias `c`. Placeholders continue from `params`, which it
 * extends. Globs are resolved by the caller to the matching paths (picomatch semantics, the
 * same as every other store), since Postgres has no glob matcher of its own.
 */
export function filterClause(filter: SearchFilter | undefined, params: unknown[], globPaths?: string[]): string | undefined {
  if (!filter) return undefined;
  const clauses: string[] = [];
  const placeholder = (value: unknown) => `$${params.push(value)}`;
  if (filter.languages && filter.languages.length > 0) clauses.push(`c.language = ANY(${placeholder(filter.languages)}::text[])`);
  if (filter.pathPrefixes && filter.pathPrefixes.length > 0) {
    clauses.push(`(${filter.pathPrefixes.map((prefix) => `starts_with(c.path, ${placeholder(pgText(prefix))})`).join(' OR ')})`);
  }
  if (filter.pathSet) clauses.push(`c.path = ANY(${placeholder(filter.pathSet.map(pgText))}::text[])`);
  if (filter.pathGlobs && filter.pathGlobs.length > 0) clauses.push(`c.path = ANY(${placeholder(globPaths ?? [])}::text[])`);
  return clauses.length > 0 ? clauses.join(' AND ') : undefined;
}
