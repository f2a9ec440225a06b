import { LociError } from '../errors/index.js';
import type { ChunkRecord, Store } from '../store/spec.js';
import { buildFilter } from './build-filter.js';
import { checkLanguageNames } from './language-aliases.js';
import { compareDefinitions, declarationLine, definitionLine, definitionMatch, isCommentOnly, nameQuery, ROLE_ORDER } from './definitions.js';
import { parseRoles, pathsWithRoles } from './role-filter.js';
import { rolesOf } from './role-priors.js';
import { resultOfRecord } from './search.js';
import type { SearchResponse, SearchResult } from './search-types.js';

export interface FindSymbolOptions {
  topK?: number;
  paths?: string[];
  languages?: string[];
  roles?: string[];
  excludeRoles?: string[];
  /** The indexed folder: absolute path filters inside it are made relative. */
  root?: string;
}

const MAX_DEFINITIONS = 1_000;

/**
 * Exact lookup: the chunks that define a symbol (`nextTick`, `Router.match`, `use-model`),
 * implementation first, then by how exactly the name matches, then by path. Nothing that
 * merely mentions the name is returned. Score: 1 exact spelling, 0.67 another case or
 * spelling, 0.5 the last segment of a qualified name spelled exactly, 0.33 in another case.
 */
export async function findSymbolDefinitions(store: Store, name: string, options: FindSymbolOptions = {}): Promise<SearchResponse> {
  const named = nameQuery(name);
  if (!named) {
    throw new LociError('INVALID_ARGUMENT', `"${name.slice(0, 80)}" is not a symbol name.`, {
      hint: 'Pass an identifier such as parseConfig, Router.match or use-model; use loci search for questions.',
    });
  }
  const topK = options.topK ?? 10;
  if (options.languages && options.languages.length > 0) checkLanguageNames(options.languages, [...(await store.languages()).keys()]);
  let filter = buildFilter({ ...(options.root ? { root: options.root } : {}), ...(options.paths ? { paths: options.paths } : {}), ...(options.languages ? { languages: options.languages } : {}) });
  const include = parseRoles(options.roles, 'role');
  const exclude = parseRoles(options.excludeRoles, 'excluded role');
  if (include || exclude) filter = { ...filter, pathSet: await pathsWithRoles(store, include, exclude) };
  // The last segment is looked up too, so `Router.match` finds `match` defined in class Router.
  const keys = [...new Set([...named.keys, ...named.keys.map((key) => key.slice(key.lastIndexOf('.') + 1))])];
  const rows = await store.findMentions({ symbols: keys, paths: [], limit: MAX_DEFINITIONS, ...(filter ? { filter } : {}) });
  const records = await store.getChunks(rows.map((row) => row.rowId));
  const roles = await rolesOf(store, [...new Set(records.map((record) => record.path))]);
  const pathOrder = new Map([...new Set(records.map((record) => record.path))].sort().map((path, index) => [path, index] as const));
  const matched = records
    .map((record) => {
      const role = roles.get(record.path) ?? 'implementation';
      const match = definitionMatch(record.symbols, named);
      const rank = { role: ROLE_ORDER[role], match, fileOrder: pathOrder.get(record.path) as number, commentOnly: isCommentOnly(record.text) ? 1 : 0, line: record.startLine };
      return { record, match, role, rank };
    })
    .filter(({ match }) => match > 0)
    .map((entry) => ({ ...entry, defined: entry.record.symbols.find((symbol) => definitionMatch([symbol], named) === entry.match) }));
  const found = withoutContinuations(matched).sort((a, b) => compareDefinitions(a.rank, b.rank));
  const results: SearchResult[] = found.slice(0, topK).map(({ record, match, role, defined }) => {
    const result = resultOfRecord(record, Number((match / 3).toFixed(4)), { mention: 1 });
    result.role = role;
    if (defined) {
      result.symbol = defined;
      const line = definitionLine(record, defined);
      if (line !== undefined) result.line = line;
    }
    return result;
  });
  return {
    query: name,
    mode: 'lexical',
    results,
    retrieval: { index: 'store', lexical: store.lexicalRanking ?? 'bm25', vectors: 'none' },
    warnings: found.length === 0 ? [`No indexed chunk defines "${named.name}"${filter ? ' among the files the filters keep (paths, languages, roles)' : ''}.`] : [],
    degraded: false,
    degradedParts: [],
  };
}

/**
 * Drops the later pieces of a definition the chunk budget split by lines: each records the
 * name, but only the first holds its declaration (a later one would point at a call). A piece
 * is dropped only when it declares nothing and an earlier piece of the same file declares the
 * same symbol, so a declaration the pattern does not know keeps every piece.
 */
function withoutContinuations<T extends { record: ChunkRecord; defined: string | undefined }>(matched: T[]): T[] {
  const declared = new Map<string, number>();
  const declaresAt = new Map<T, number | undefined>();
  for (const entry of matched) {
    if (entry.defined === undefined) continue;
    const line = declarationLine(entry.record, entry.defined);
    declaresAt.set(entry, line);
    if (line === undefined) continue;
    const key = `${entry.record.path}\0${entry.defined}`;
    declared.set(key, Math.min(declared.get(key) ?? Number.POSITIVE_INFINITY, entry.record.startLine));
  }
  return matched.filter((entry) => {
    if (entry.defined === undefined || declaresAt.get(entry) !== undefined) return true;
    const first = declared.get(`${entry.record.path}\0${entry.defined}`);
    return first === undefined || first > entry.record.startLine;
  });
}
