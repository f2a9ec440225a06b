import type { FileRole } from '../sources/file-role.js';
import type { ChunkRecord } from '../store/spec.js';
import { rescoredCandidate, type FusionCandidate } from './fusion.js';

/** A query that is nothing but a name: the spellings a definition of it may carry. */
export interface NameQuery {
  /** As typed, without backticks or a trailing `()`. */
  name: string;
  /** Lower-cased spellings to look up: `use-model` → use-model, usemodel, use_model. */
  keys: string[];
}

const identifier = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$/;
const kebab = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+$/;

/** `nextTick`, `createApp()`, `` `Foo.bar` ``, `use-model`, `Foo::bar`: a lookup by name, not a question. */
export function nameQuery(query: string): NameQuery | undefined {
  const name = query
    .trim()
    .replace(/^`(.*)`$/, '$1')
    .replace(/\(\)$/, '')
    .trim();
  if (name.length < 1 || name.length > 200) return undefined;
  if (identifier.test(name)) {
    const dotted = name.replace(/::|#/g, '.');
    return { name: dotted, keys: [...new Set([dotted.toLowerCase()])] };
  }
  if (kebab.test(name)) {
    const parts = name.toLowerCase().split('-');
    return { name, keys: [...new Set([parts.join(''), parts.join('_'), parts.join('-')])] };
  }
  return undefined;
}

/**
 * How well a chunk's definitions match the name: 3 the exact spelling, 2 another case or
 * spelling, 1.5 the last segment of a qualified name spelled exactly (`res.sendfile` for
 * `sendfile`), 1 the last segment in another case, 0 none.
 */
export function definitionMatch(symbols: readonly string[], query: NameQuery): number {
  let best = 0;
  for (const symbol of symbols) {
    if (symbol === query.name) return 3;
    const lower = symbol.toLowerCase();
    const flat = lower.replace(/[-_]/g, '');
    if (query.keys.includes(lower) || query.keys.includes(flat)) best = Math.max(best, 2);
    else {
      const dot = symbol.lastIndexOf('.');
      const last = symbol.slice(dot + 1);
      if (dot >= 0 && last === query.name) best = Math.max(best, 1.5);
      else if (query.keys.includes(last.toLowerCase()) || query.keys.includes(last.toLowerCase().replace(/[-_]/g, ''))) best = Math.max(best, 1);
    }
  }
  return best;
}

/** The symbol matching the named query best (its exact spelling first), if any matches. */
export function bestDefined(symbols: readonly string[], named: NameQuery): string | undefined {
  let best: string | undefined;
  let most = 0;
  for (const symbol of symbols) {
    const match = definitionMatch([symbol], named);
    if (match > most) [best, most] = [symbol, match];
  }
  return best;
}

/** Which roles' definitions come first when a name is defined in several places. */
export const ROLE_ORDER: Readonly<Record<FileRole, number>> = { implementation: 0, generated: 1, config: 2, docs: 3, example: 4, test: 5, fixture: 6, lock: 7 };

/** What orders the chunks defining a name (definitionsFirst and the exact lookup). */
export interface DefinitionRank {
  /** ROLE_ORDER of the file's role: implementation first. */
  role: number;
  /** definitionMatch: exact spelling first. */
  match: number;
  /** The file's place (ranked order, or path order for an exact lookup). */
  fileOrder: number;
  /** 1 when the chunk is only a comment (the doc comment of a definition split by the budget). */
  commentOnly: number;
  line: number;
}

/**
 * Implementation before tests, exact spelling first, files in their order; inside a file the
 * first declaration first (an overload's signature and its doc comment come before the body),
 * but a piece that is only the doc comment of a definition comes after the piece with its code.
 */
export function compareDefinitions(a: DefinitionRank, b: DefinitionRank): number {
  return a.role - b.role || b.match - a.match || a.fileOrder - b.fileOrder || a.commentOnly - b.commentOnly || a.line - b.line;
}

/**
 * Puts the chunks that define the named symbol first — implementation before tests and
 * examples, exact spelling before other cases — and keeps everything else in its order
 * below them. Each definition keeps its score, lifted just above the best other result.
 */
export function definitionsFirst(candidates: FusionCandidate[], records: Map<number, ChunkRecord>, roles: Map<string, FileRole>, query: NameQuery): FusionCandidate[] {
  const definitions: Array<DefinitionRank & { candidate: FusionCandidate }> = [];
  const rest: FusionCandidate[] = [];
  const fileOrder = new Map<string, number>();
  candidates.forEach((candidate) => {
    const record = records.get(candidate.rowId);
    const match = record ? definitionMatch(record.symbols, query) : 0;
    if (match === 0 || !record) {
      rest.push(candidate);
      return;
    }
    if (!fileOrder.has(candidate.path)) fileOrder.set(candidate.path, fileOrder.size);
    definitions.push({
      candidate,
      match,
      role: ROLE_ORDER[roles.get(candidate.path) ?? 'implementation'],
      fileOrder: fileOrder.get(candidate.path) as number,
      commentOnly: isCommentOnly(record.text) ? 1 : 0,
      line: record.startLine,
    });
  });
  if (definitions.length === 0) return candidates;
  definitions.sort(compareDefinitions);
  const top = rest.length > 0 ? Math.max(...rest.map((candidate) => candidate.score)) : 0;
  // Scores stay in order: definitions share the room between the best other result and
  // the top of the scale (1, or the best score when that is higher), evenly, best first.
  const ceiling = Math.max(1, top, ...definitions.map(({ candidate }) => candidate.score));
  const count = definitions.length;
  const lifted = definitions.map(({ candidate, match }, index) =>
    rescoredCandidate(candidate, top + ((ceiling - top) * (count - index)) / (count + 1), { adjustments: { ...candidate.adjustments, definition: match } }),
  );
  return [...lifted, ...rest];
}

// Comment lines in the languages the code chunker reads: //, ///, /* … */ and its * lines, #.
const commentLine = /^\s*(\/\/|\/\*|\*|#(?![[!]))/;

/** Whether every non-blank line of a chunk is a comment (the doc-comment piece of a split definition). */
export function isCommentOnly(text: string): boolean {
  let any = false;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (!commentLine.test(line)) return false;
    any = true;
  }
  return any;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The line of `record` where `symbol` (as the chunker recorded it: `Store.get`, `res.send`)
 * is defined: the first line naming its last segment in a declaration (`function x`, `def x`,
 * `x = function`, `x(…) {`, `fn x`, `func (r *T) x`, `class x`, …), else the first line naming
 * it at all; undefined when the text never names it.
 */
export function definitionLine(record: Pick<ChunkRecord, 'text' | 'startLine'>, symbol: string): number | undefined {
  const found = namingLines(record, symbol);
  return found.declared ?? found.mentioned;
}

/** The line of `record` that declares `symbol` (see definitionLine), undefined when none does. */
export function declarationLine(record: Pick<ChunkRecord, 'text' | 'startLine'>, symbol: string): number | undefined {
  return namingLines(record, symbol).declared;
}

function namingLines(record: Pick<ChunkRecord, 'text' | 'startLine'>, symbol: string): { declared?: number; mentioned?: number } {
  const name = symbol.slice(Math.max(symbol.lastIndexOf('.'), symbol.lastIndexOf(':')) + 1);
  if (name === '') return {};
  const word = new RegExp(`(^|[^\\w$])${escapeRegExp(name)}(?![\\w$])`);
  const declared = new RegExp(
    `\\b(function\\*?|def|class|interface|type|enum|struct|trait|impl|fn|func|const|let|var|module|namespace|record|object|protocol|typealias)\\s+(\\([^)]*\\)\\s*)?${escapeRegExp(name)}(?![\\w$])|(^|[^\\w$.])${escapeRegExp(name)}\\s*(=(?!=)|:\\s*(function|\\()|\\([^)]*\\)\\s*(\\{|:|=>|->))|\\.${escapeRegExp(name)}\\s*=(?!=)`,
  );
  const lines = record.text.split('\n');
  let mentioned: number | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    // A comment that names it (a doc comment split from its code) is no definition line.
    if (!word.test(line) || isCommentOnly(line)) continue;
    if (declared.test(line)) return { declared: record.startLine + index };
    mentioned ??= record.startLine + index;
  }
  return mentioned === undefined ? {} : { mentioned };
}
